package main

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// calibrationSeeds is how many seeds BenchmarkRaftAlone runs (untimed) to
// learn what one seed asks of raft.
const calibrationSeeds = 30

// BenchmarkRaftAlone is the floor of BenchmarkSeed that is raft's own: five
// etcd raft RawNodes on MemoryStorage driven by one plain loop, with no
// simulator, no network, no log file and no clients, doing per op what an
// average seed makes its nodes do (as many Step calls, about as many Ready
// calls, messages, proposals, read index rounds, elections and restarts:
// the seed's counts are reported beside the loop's). "bare" delivers the
// raft messages as they are; "codec" also encodes and decodes each one
// with raftkv's wire codec, as the transport does. A seed's CPU time minus
// this is what the simulator and the rest of raftkv cost.
func BenchmarkRaftAlone(b *testing.B) {
	var want raftStats
	for seed := range uint64(calibrationSeeds) {
		o := runSeed(simConfig{Seed: seed})
		if o.Failure != "" {
			b.Fatalf("seed %d: %s", seed, o.Failure)
		}
		want.add(o.Raft)
	}
	want = want.per(calibrationSeeds)
	for _, codec := range []bool{false, true} {
		name := "bare"
		if codec {
			name = "codec"
		}
		b.Run(name, func(b *testing.B) {
			var got raftStats
			n := 0
			for b.Loop() {
				d := newRaftDriver(uint64(n), want, codec)
				d.run()
				got.add(d.stats)
				n++
			}
			got = got.per(n)
			b.ReportMetric(float64(got.Steps), "steps/op")
			b.ReportMetric(float64(got.Readies), "readies/op")
			b.ReportMetric(float64(got.Messages), "msgs/op")
			b.ReportMetric(float64(got.Committed), "committed/op")
			b.ReportMetric(float64(want.Steps), "seed-steps")
			b.ReportMetric(float64(want.Readies), "seed-readies")
			b.ReportMetric(float64(want.Messages), "seed-msgs")
			b.ReportMetric(float64(want.Committed), "seed-committed")
		})
	}
}

// per divides every count by n.
func (s raftStats) per(n int) raftStats {
	return raftStats{
		Nodes: s.Nodes / n, Steps: s.Steps / n, Readies: s.Readies / n, Messages: s.Messages / n,
		Entries: s.Entries / n, Committed: s.Committed / n, Ticks: s.Ticks / n, Campaigns: s.Campaigns / n,
		Proposals: s.Proposals / n, ReadIndex: s.ReadIndex / n,
	}
}

// raftDriver runs five RawNodes with instant, in-order delivery. Each round
// ticks the leaders, makes the round's share of proposals and read index
// requests at a leader, now and then has a follower campaign or restarts a
// node (a new RawNode on the node's MemoryStorage, which re-applies the
// committed log), then delivers messages until the cluster is quiet,
// stepping at most maxEventBatch queued messages per node before each
// Ready, as runNode does.
type raftDriver struct {
	want   raftStats
	codec  bool
	rng    *rand.Rand
	nodes  []*raft.RawNode
	ms     []*raft.MemoryStorage
	inbox  [][]*pb.Message
	leader []bool
	stats  raftStats
	buf    []byte
	seq    uint64
}

const raftDriverNodes = 5

var batchFlag = 2

func newRaftDriver(seed uint64, want raftStats, codec bool) *raftDriver {
	d := &raftDriver{want: want, codec: codec, rng: rand.New(rand.NewPCG(seed, 1))}
	for i := range raftDriverNodes {
		d.ms = append(d.ms, raft.NewMemoryStorage())
		d.nodes = append(d.nodes, nil)
		d.inbox = append(d.inbox, nil)
		d.leader = append(d.leader, false)
		d.start(i)
	}
	return d
}

// start makes node i's RawNode with runNode's configuration.
func (d *raftDriver) start(i int) {
	voters := make([]uint64, raftDriverNodes)
	for j := range voters {
		voters[j] = uint64(j + 1)
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:                        uint64(i + 1),
		ElectionTick:              electionTicks,
		HeartbeatTick:             heartbeatTicks,
		Storage:                   voterStorage{d.ms[i], voters},
		MaxSizePerMsg:             64 << 10,
		MaxInflightMsgs:           64,
		PreVote:                   true,
		ReadOnlyOption:            raft.ReadOnlySafe,
		DisableProposalForwarding: true,
		Logger:                    (*logger)(nil).raft(uint64(i + 1)),
	})
	if err != nil {
		panic(err)
	}
	d.nodes[i] = rn
	d.inbox[i] = d.inbox[i][:0]
	d.leader[i] = false
	d.stats.Nodes++
}

// run drives rounds until the cluster has stepped as many messages as the
// seed did.
func (d *raftDriver) run() {
	w := d.want
	rounds := max(w.Ticks, 1)
	// A seed's node restarts beyond the first five, its campaigns, its
	// proposals and reads, spread evenly over the rounds.
	restarts := max(w.Nodes-raftDriverNodes, 0)
	d.campaign(0)
	for r := 0; d.stats.Steps < w.Steps; r++ {
		for i, rn := range d.nodes {
			if d.leader[i] {
				d.stats.Ticks++
				rn.Tick()
			}
		}
		if l := d.leaderIndex(); l >= 0 {
			for d.stats.Proposals*rounds < w.Proposals*(r+1) {
				d.stats.Proposals++
				d.seq++
				_ = d.nodes[l].Propose(appendCommand(nil, Command{Client: uint32(d.seq % 3), Seq: d.seq, Kind: OpPut, Key: "x", Value: "v"}))
			}
			for d.stats.ReadIndex*rounds < w.ReadIndex*(r+1) {
				d.stats.ReadIndex++
				d.seq++
				d.nodes[l].ReadIndex(readContext(uint32(d.seq%3), d.seq))
			}
		}
		if d.stats.Campaigns*rounds < w.Campaigns*(r+1) {
			d.campaign(d.rng.IntN(raftDriverNodes))
		}
		if (d.stats.Nodes-raftDriverNodes)*rounds < restarts*(r+1) {
			d.start(d.rng.IntN(raftDriverNodes))
		}
		d.deliver()
	}
}

func (d *raftDriver) leaderIndex() int {
	for i, l := range d.leader {
		if l {
			return i
		}
	}
	return -1
}

func (d *raftDriver) campaign(i int) {
	d.stats.Campaigns++
	_ = d.nodes[i].Campaign()
	d.deliver()
}

// deliver steps and processes Readies until no message is in flight.
func (d *raftDriver) deliver() {
	for {
		busy := false
		for i, rn := range d.nodes {
			in := d.inbox[i]
			// One message per Ready while the loop has made fewer Ready
			// calls per Step than the seed, a whole batch otherwise.
			k := min(len(in), maxEventBatch)
			if d.stats.Readies*d.want.Steps < d.stats.Steps*d.want.Readies {
				k = min(len(in), 1)
			}
			for _, m := range in[:k] {
				d.stats.Steps++
				_ = rn.Step(m)
			}
			d.inbox[i] = append(in[:0], in[k:]...)
			for rn.HasReady() {
				busy = true
				d.ready(i, rn)
			}
			if len(d.inbox[i]) > 0 {
				busy = true
			}
		}
		if !busy {
			return
		}
	}
}

// ready processes one Ready of node i in the order runNode does.
func (d *raftDriver) ready(i int, rn *raft.RawNode) {
	rd := rn.Ready()
	d.stats.add(raftStats{Readies: 1, Messages: len(rd.Messages), Entries: len(rd.Entries), Committed: len(rd.CommittedEntries)})
	if ss := rd.SoftState; ss != nil {
		d.leader[i] = ss.RaftState == raft.StateLeader
	}
	if err := d.ms[i].Append(rd.Entries); err != nil {
		panic(err)
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		if err := d.ms[i].SetHardState(rd.HardState); err != nil {
			panic(err)
		}
	}
	for _, m := range rd.Messages {
		to := int(m.GetTo()) - 1
		if d.codec {
			f := appendMessage(append(d.buf[:0], 0, 0, 0, 0), m)
			binary.BigEndian.PutUint32(f, uint32(len(f)-4))
			d.buf = f
			dm, err := decodeMessage(append([]byte(nil), f[4:]...))
			if err != nil {
				panic(err)
			}
			m = dm
		}
		d.inbox[to] = append(d.inbox[to], m)
	}
	rn.Advance(rd)
}
