package main

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/simrt/simrt"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Timing of a node, in runtime time.
const (
	// tickInterval is how often the node's clock ticks.
	tickInterval = 50 * time.Millisecond
	// heartbeatTicks is how often a leader sends heartbeats.
	heartbeatTicks = 2
	// electionTicks is the shortest election timeout; each node draws its
	// timeout from [electionTicks, 2*electionTicks) after each reset.
	electionTicks = 10
	// inboxSize bounds the node's queue of events.
	inboxSize = 1024
	// bugSyncInterval is how often the unsynced-ack bug syncs its log.
	bugSyncInterval = 20 * time.Millisecond
)

// event is one thing for the node's loop to handle: a raft message from a
// peer, a client request, a clock tick, or a peer found unreachable.
type event struct {
	msg         *pb.Message
	req         *request
	tick        bool
	unreachable uint64
}

// request is a client's command and where to send the answer.
type request struct {
	cmd   Command
	reply *simrt.Oneshot[response]
}

// pendingWrite is a proposed write waiting to be applied. index and term
// say where the proposal landed in the log, once the node has seen it
// there.
type pendingWrite struct {
	seq         uint64
	index, term uint64
	reply       *simrt.Oneshot[response]
}

// pendingRead is a read waiting for its read index to be confirmed by the
// leader and then applied locally.
type pendingRead struct {
	seq   uint64
	key   string
	index uint64
	ready bool // index is known
	reply *simrt.Oneshot[response]
	// issue is, once ready, when the read index round raft confirmed
	// began (confirmedRead): with leases, it renews the lease from then.
	issue
}

// nodeConfig is what a node is told at start.
type nodeConfig struct {
	id      uint64
	nodes   int
	clients int
	bugs    bugSet
	log     *logger
	// onLeader, if not nil, is told each time the node becomes leader,
	// with the term: the harness checks that no term has two leaders.
	onLeader func(id, term uint64)
	// onLeaseRead, if not nil, is told each time the node serves a read
	// from its lease, with its term: the harness checks lease safety.
	onLeaseRead func(id, term uint64)
	// stats, if not nil, counts the node's calls into raft.
	stats *raftStats
}

// node is one incarnation of a raft replica: everything in it is lost when
// the process crashes, except what its write-ahead log made durable.
type node struct {
	nodeConfig
	ctx     simrt.Context
	rn      *raft.RawNode
	ms      *raft.MemoryStorage
	wal     *wal
	kv      *store
	inbox   *simrt.Chan[event]
	peers   []*peerLink // by id-1; nil for this node
	writes  []pendingWrite
	reads   []pendingRead
	applied uint64
	state   raft.StateType
	lead    uint64
	vote    uint64
	idle    int    // ticks since the node last heard from a leader
	timeout int    // ticks of silence after which it campaigns
	ticks   uint64 // ticks handled by this incarnation
	// quiet is, with leases, the ticks since the node last processed a
	// leader's message or, if it has not, since it started (refuseVote).
	quiet int
	heard bool  // the batch being handled has a message heardLeader accepts
	lease lease // with leases: the leader's lease
	// renewals are the lease renewal rounds awaiting confirmation.
	renewals []renewal
	// rounds are the client read rounds awaiting confirmation (issueRead).
	rounds []round
}

// voterStorage is the node's MemoryStorage with the cluster's fixed
// membership as its configuration: the cluster starts with every node a
// voter and an empty log, and never changes membership.
type voterStorage struct {
	*raft.MemoryStorage
	voters []uint64
}

// InitialState implements raft.Storage.InitialState.
func (s voterStorage) InitialState() (*pb.HardState, *pb.ConfState, error) {
	hs, _, err := s.MemoryStorage.InitialState()
	return hs, &pb.ConfState{Voters: s.voters}, err
}

// runNode runs one incarnation of node cfg.id until it is aborted. It
// recovers the log and hard state from storage, rebuilds the key-value
// store by re-applying the committed log, and then loops: handle one
// event, then process every Ready.
func runNode(ctx simrt.Context, cfg nodeConfig) {
	w, ms, hs := openWALRetry(ctx, cfg.id)
	defer w.close()
	voters := make([]uint64, cfg.nodes)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	rn, err := raft.NewRawNode(&raft.Config{
		ID:              cfg.id,
		ElectionTick:    electionTicks,
		HeartbeatTick:   heartbeatTicks,
		Storage:         voterStorage{ms, voters},
		MaxSizePerMsg:   64 << 10,
		MaxInflightMsgs: 64,
		PreVote:         true,
		ReadOnlyOption:  raft.ReadOnlySafe,
		// A follower answers a write with a redirect; raft must not forward it.
		DisableProposalForwarding: true,
		Logger:                    cfg.log.raft(cfg.id),
	})
	if err != nil {
		panic("raftkv: new raft node: " + err.Error())
	}
	cfg.stats.add(raftStats{Nodes: 1})
	n := &node{
		nodeConfig: cfg,
		ctx:        ctx,
		rn:         rn,
		ms:         ms,
		wal:        w,
		kv:         newStore(cfg.clients),
		inbox:      simrt.NewChan[event](inboxSize),
		peers:      make([]*peerLink, cfg.nodes),
		writes:     make([]pendingWrite, cfg.clients),
		reads:      make([]pendingRead, cfg.clients),
		state:      raft.StateFollower,
		vote:       hs.GetVote(),
	}
	n.log.printf(ctx, "n%d: start: term %d, vote %d, commit %d, last index %d",
		cfg.id, hs.GetTerm(), hs.GetVote(), hs.GetCommit(), lastIndex(ms))
	for i := range n.peers {
		if id := uint64(i + 1); id != cfg.id {
			p := newPeerLink(id)
			n.peers[i] = p
			simrt.Spawn(ctx.Child("peer"), func(ctx simrt.Context) struct{} { p.run(ctx, n); return struct{}{} })
		}
	}
	accepted := simrt.NewChan[conn](64)
	simrt.Spawn(ctx.Child("listener"), func(ctx simrt.Context) struct{} { listen(ctx, cfg.id, accepted); return struct{}{} })
	simrt.Spawn(ctx.Child("conns"), func(ctx simrt.Context) struct{} { n.serveConns(ctx, accepted); return struct{}{} })
	simrt.Spawn(ctx.Child("ticker"), func(ctx simrt.Context) struct{} {
		for {
			ctx.Sleep(tickInterval)
			if n.inbox.Send(ctx, event{tick: true}) != nil {
				return struct{}{}
			}
		}
	})
	if cfg.bugs.has(bugUnsyncedAck) {
		simrt.Spawn(ctx.Child("syncer"), func(ctx simrt.Context) struct{} {
			for {
				ctx.Sleep(bugSyncInterval)
				if err := w.sync(); err != nil {
					panic("raftkv: sync: " + err.Error())
				}
			}
		})
	}
	n.resetElection()
	for {
		ev, ok := n.inbox.Recv(ctx)
		if !ok {
			return
		}
		fromLeader := n.handle(ev)
		for range maxEventBatch - 1 {
			if ev, ok = n.inbox.TryRecv(); !ok {
				break
			}
			if from := n.handle(ev); from != 0 {
				fromLeader = from
			}
		}
		n.ready()
		n.endBatch(fromLeader)
	}
}

// maxEventBatch bounds how many queued events the node handles before it
// processes a Ready: one log write and one round of messages then serve
// the whole batch.
const maxEventBatch = 64

// openWALRetry opens the log, waiting for a previous incarnation that is
// still being unwound to release it.
func openWALRetry(ctx simrt.Context, id uint64) (*wal, *raft.MemoryStorage, *pb.HardState) {
	for {
		w, ms, hs, err := openWAL(ctx, id)
		if errors.Is(err, errBlobBusy) {
			ctx.Sleep(time.Millisecond)
			continue
		}
		if err != nil {
			panic("raftkv: open wal: " + err.Error())
		}
		return w, ms, hs
	}
}

func lastIndex(ms *raft.MemoryStorage) uint64 {
	i, _ := ms.LastIndex()
	return i
}

// handle handles one event. It returns the sender of a message only a
// leader sends (an append, a heartbeat or a snapshot), or 0: once the Ready
// has been processed, a message from the current leader restarts the
// election timer.
func (n *node) handle(ev event) (fromLeader uint64) {
	switch {
	case ev.msg != nil:
		switch ev.msg.GetType() {
		case pb.MsgApp, pb.MsgHeartbeat, pb.MsgSnap:
			fromLeader = ev.msg.GetFrom()
		}
		if n.refuseVote(ev.msg) {
			return 0
		}
		if n.heardLeader(ev.msg) {
			n.heard = true
		}
		n.stats.add(raftStats{Steps: 1})
		_ = n.rn.Step(ev.msg) // messages from unknown peers or stale terms are dropped
	case ev.req != nil:
		n.request(ev.req)
	case ev.tick:
		n.tick()
	case ev.unreachable != 0:
		n.rn.ReportUnreachable(ev.unreachable)
	}
	return fromLeader
}

// tick advances the clock. Only a leader ticks raft itself: raft draws
// election timeouts from a process-wide crypto/rand source, which no seed
// controls, so followers and candidates keep their own election timer,
// drawn from the runtime's seeded generator, and campaign through
// RawNode.Campaign when it expires.
func (n *node) tick() {
	n.ticks++
	n.quiet++
	if n.state == raft.StateLeader {
		n.stats.add(raftStats{Ticks: 1})
		n.rn.Tick()
		n.startRenewal()
		return
	}
	n.idle++
	if n.idle >= n.timeout {
		if n.log.enabled() {
			n.log.printf(n.ctx, "n%d: election timeout after %d ticks, campaigning", n.id, n.idle)
		}
		n.stats.add(raftStats{Campaigns: 1})
		_ = n.rn.Campaign()
		n.resetElection()
	}
}

// resetElection restarts the election timer with a fresh random timeout.
func (n *node) resetElection() {
	n.idle = 0
	n.timeout = electionTicks + n.ctx.Rand().IntN(electionTicks)
}

// request starts serving a client request. Writes go through the leader's
// log; reads are served by any node once raft has confirmed a read index
// with a quorum and the node has applied up to it.
func (n *node) request(r *request) {
	c := r.cmd
	if int(c.Client) >= n.clients {
		r.reply.Close()
		return
	}
	n.supersede(c.Client)
	if c.Kind == OpGet {
		if n.bugs.has(bugFollowerRead) && n.state != raft.StateLeader {
			r.reply.Send(response{status: statusOK, result: n.kv.get(c.Key)})
			return
		}
		if n.leaseRead() {
			if n.onLeaseRead != nil {
				n.onLeaseRead(n.id, n.rn.BasicStatus().GetTerm())
			}
			r.reply.Send(response{status: statusOK, result: n.kv.get(c.Key)})
			return
		}
		if n.lead == 0 {
			r.reply.Send(response{status: statusRedirect})
			return
		}
		n.reads[c.Client] = pendingRead{seq: c.Seq, key: c.Key, reply: r.reply}
		n.issueRead(c.Client, c.Seq)
		n.stats.add(raftStats{ReadIndex: 1})
		n.rn.ReadIndex(readContext(c.Client, c.Seq))
		return
	}
	if n.state != raft.StateLeader {
		r.reply.Send(response{status: statusRedirect, leader: n.lead})
		return
	}
	n.stats.add(raftStats{Proposals: 1})
	if err := n.rn.Propose(appendCommand(nil, c)); err != nil {
		r.reply.Send(response{status: statusRetry})
		return
	}
	n.writes[c.Client] = pendingWrite{seq: c.Seq, reply: r.reply}
}

// supersede drops a client's earlier request: the client gave up on it.
func (n *node) supersede(client uint32) {
	if w := &n.writes[client]; w.reply != nil {
		w.reply.Close()
		*w = pendingWrite{}
	}
	if r := &n.reads[client]; r.reply != nil {
		r.reply.Close()
		*r = pendingRead{}
	}
}

// ready processes every Ready in the order raft requires: persist the
// entries and hard state (synced), then send the messages, then apply the
// committed entries, then Advance.
func (n *node) ready() {
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		n.stats.add(raftStats{Readies: 1, Messages: len(rd.Messages), Entries: len(rd.Entries), Committed: len(rd.CommittedEntries)})
		if ss := rd.SoftState; ss != nil {
			if (ss.Lead != n.lead || ss.RaftState != n.state) && n.log.enabled() {
				n.log.printf(n.ctx, "n%d: %v, leader n%d", n.id, ss.RaftState, ss.Lead)
			}
			if ss.RaftState == raft.StateLeader && n.state != raft.StateLeader && n.onLeader != nil {
				st := n.rn.BasicStatus()
				n.onLeader(n.id, st.GetTerm())
			}
			if ss.RaftState != raft.StateLeader {
				n.dropLease()
			}
			n.state, n.lead = ss.RaftState, ss.Lead
			n.idle = 0
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			panic("raftkv: unexpected snapshot: the log is never compacted")
		}
		hs := rd.HardState
		if raft.IsEmptyHardState(hs) {
			hs = nil
		}
		// A hard state whose term and vote are unchanged (only the commit
		// index moved) need not be durable: raft learns the commit index
		// again from the leader. Skipping it keeps every log write synced.
		save := hs
		if !rd.MustSync || n.bugs.has(bugForgetHardState) {
			save = nil
		}
		sync := rd.MustSync && !n.bugs.has(bugUnsyncedAck)
		if n.bugs.has(bugUnsyncedVote) && len(rd.Entries) == 0 {
			sync = false // "only a vote: nothing to lose"
		}
		if err := n.wal.append(rd.Entries, save, sync); err != nil {
			panic("raftkv: wal append: " + err.Error())
		}
		if err := n.ms.Append(rd.Entries); err != nil {
			panic("raftkv: append: " + err.Error())
		}
		if hs != nil {
			if hs.GetVote() != n.vote {
				n.vote = hs.GetVote()
				n.idle = 0 // granting a vote restarts the election timer, as in raft
			}
			if err := n.ms.SetHardState(hs); err != nil {
				panic("raftkv: set hard state: " + err.Error())
			}
		}
		for _, m := range rd.Messages {
			if p := n.peers[m.GetTo()-1]; p != nil {
				p.send(m)
			}
		}
		n.noteProposals(rd.Entries)
		n.apply(rd.CommittedEntries)
		n.noteReads(rd.ReadStates)
		n.serveReads()
		n.rn.Advance(rd)
	}
}

// noteProposals records where this leader's pending writes landed in its
// log.
func (n *node) noteProposals(ents []*pb.Entry) {
	if n.state != raft.StateLeader {
		return
	}
	for _, e := range ents {
		if e.GetType() != pb.EntryNormal || len(e.GetData()) == 0 {
			continue
		}
		c, err := decodeCommand(e.GetData())
		if err != nil || int(c.Client) >= n.clients {
			continue
		}
		if w := &n.writes[c.Client]; w.reply != nil && w.seq == c.Seq && w.index == 0 {
			w.index, w.term = e.GetIndex(), e.GetTerm()
		}
	}
}

// apply applies committed entries to the store and answers the writes they
// complete. A pending write is answered by the entry at its index only if
// that entry also has its term: otherwise a new leader overwrote the
// proposal, and the client must retry.
func (n *node) apply(ents []*pb.Entry) {
	for _, e := range ents {
		n.applied = e.GetIndex()
		res := Result{OK: true}
		if e.GetType() == pb.EntryNormal && len(e.GetData()) > 0 {
			c, err := decodeCommand(e.GetData())
			if err != nil {
				panic("raftkv: corrupt committed entry: " + err.Error())
			}
			res = n.kv.apply(c)
		}
		for i := range n.writes {
			w := &n.writes[i]
			if w.reply == nil || w.index != e.GetIndex() {
				continue
			}
			if w.term == e.GetTerm() || n.bugs.has(bugNoTermCheck) {
				w.reply.Send(response{status: statusOK, result: res})
			} else {
				w.reply.Send(response{status: statusRetry})
			}
			*w = pendingWrite{}
		}
	}
}

// readContext identifies a read request to raft's ReadIndex.
func readContext(client uint32, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, client), seq)
}

// noteReads records the read indexes raft confirmed.
func (n *node) noteReads(rss []raft.ReadState) {
	for _, rs := range rss {
		if n.noteRenewal(rs) || len(rs.RequestCtx) != 12 {
			continue
		}
		client := binary.BigEndian.Uint32(rs.RequestCtx)
		seq := binary.BigEndian.Uint64(rs.RequestCtx[4:])
		if int(client) >= n.clients {
			continue
		}
		is := n.confirmedRead(client, seq)
		if r := &n.reads[client]; r.reply != nil && r.seq == seq {
			r.index, r.ready, r.issue = rs.Index, true, is
		}
	}
}

// serveReads answers the reads whose read index has been applied.
func (n *node) serveReads() {
	for i := range n.reads {
		r := &n.reads[i]
		if r.reply != nil && r.ready && n.applied >= r.index {
			n.renewLease(r.issue)
			r.reply.Send(response{status: statusOK, result: n.kv.get(r.key)})
			*r = pendingRead{}
		}
	}
}
