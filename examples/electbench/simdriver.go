package electbench

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/rtapi"
)

// The simrt driver runs the scenario the way a simrt user writes a
// cluster: every node is a task on its own simulated host that handles its
// inbox and its timers, sends over simnet connections it dials to every
// peer, and receives through a listener and one reader task per inbound
// connection. A reader steps the node with each message it receives,
// under the node's Mutex (the node's task holds it too while it handles a
// timer), so that a delivered message wakes one task, not the reader and
// then the node's task through its inbox (the inboxHop diagnostic). Latency and jitter come from the simnet link model, the
// split and the heal from the network's partition API. The auditor and
// the metrics stay on, as in every simrt run.
//
// The link model's Loss is TCP's (a lost segment is retransmitted, never
// dropped), so the scenario's datagram loss is drawn by the sender from
// the runtime's generator. A split resets the connections it cuts almost
// at once (HoldTimeout), so that, as in the floor, a message in flight
// across it is lost; a send on a reset connection redials once, and a dial
// across the split fails at once, so messages sent across it are lost too.

// nodePort is where every node listens.
const nodePort = 7000

// setupTime is the simulated time the cluster gets to bind and dial before
// the scenario's clock starts (a dial takes one round trip, 2 ms).
const setupTime = 20 * time.Millisecond

// holdTimeout is how long a split may hold a connection's bytes before it
// resets the connection.
const holdTimeout = time.Microsecond

// frameSize is the size of a frame: an encoded Message and the time since
// the scenario's start at which it was sent (for the network-model check,
// Result.Leaked).
const frameSize = 36

var errBadFrame = errors.New("electbench: malformed frame")

// SimConfig tunes how the simrt driver runs, not what it runs.
type SimConfig struct {
	// Coroutines, when set, lends the run the idle coroutines of earlier
	// runs (one pool per worker goroutine; see pool.Coroutines).
	Coroutines *pool.Coroutines

	// eventLog is Config.Hooks.EventLog for the run (the anatomy benchmark
	// counts events by label).
	eventLog int
	// setupOnly ends the run as soon as the cluster has connected: the
	// fixed cost of a run.
	setupOnly bool
	// holdForever leaves the network's HoldTimeout at zero, so that a split
	// holds the bytes in flight across it until the heal instead of losing
	// them (the test of Result.Leaked).
	holdForever bool
	// anyVote plants the double-vote bug in every node (Node.anyVote).
	anyVote bool
	// direct bypasses the network stack (see simdirect.go): a diagnostic,
	// to tell the network's share of a run from the tasks' and timers'.
	direct bool
	// inboxHop makes each reader task hand the messages it receives to
	// the node's task through its inbox, which then steps the node,
	// instead of stepping the node itself under the node's mutex: a
	// diagnostic, the driver as it was before 2026-12-02's fifth session,
	// to measure the second resume of a delivered message.
	inboxHop bool
}

func nodeHost(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}) }

func nodeAddr(i int) netip.AddrPort { return netip.AddrPortFrom(nodeHost(i), nodePort) }

// encode writes m, sent at sent, into b, which holds frameSize bytes.
func encode(b []byte, m Message, sent time.Duration) {
	b[0], b[1], b[2] = byte(m.Type), m.From, m.To
	b[3] = 0
	if m.OK {
		b[3] = 1
	}
	binary.BigEndian.PutUint64(b[4:], m.Term)
	binary.BigEndian.PutUint64(b[12:], m.Index)
	binary.BigEndian.PutUint64(b[20:], m.LogTerm)
	binary.BigEndian.PutUint64(b[28:], uint64(sent))
}

// decode reads a Message and its send time from a frame, checking every
// field.
func decode(b []byte) (Message, time.Duration, error) {
	if len(b) != frameSize || b[0] < byte(MsgVote) || b[0] > byte(MsgHeartbeatResp) ||
		b[1] >= Nodes || b[2] >= Nodes || b[1] == b[2] || b[3] > 1 || int64(binary.BigEndian.Uint64(b[28:])) < 0 {
		return Message{}, 0, errBadFrame
	}
	return Message{
		Type: MsgType(b[0]), From: b[1], To: b[2], OK: b[3] == 1,
		Term:    binary.BigEndian.Uint64(b[4:]),
		Index:   binary.BigEndian.Uint64(b[12:]),
		LogTerm: binary.BigEndian.Uint64(b[20:]),
	}, time.Duration(binary.BigEndian.Uint64(b[28:])), nil
}

// simEvent is what a node's inbox carries: a message or a fired timer.
type simEvent struct {
	msg   Message
	timer TimerKind
	gen   uint64
	sent  time.Duration // when msg was sent, since the scenario's start
}

// simRun is one run of the scenario on simrt.
type simRun struct {
	cfg   SimConfig
	log   *deterministic.EventLog
	t0    time.Time     // the scenario's clock starts here
	split time.Duration // when the split was made, since t0; forever until then
	heal  time.Duration // when it was healed, since t0; forever until then
	nodes []*Node
	sims  []*simNode
	dir   direct // the direct mode's network
	check *Checker
	res   Result
	err   error
}

// simNode is the driver's half of one node.
type simNode struct {
	run   *simRun
	nd    *Node
	inbox *simrt.Chan[simEvent]
	mu    simrt.Mutex // held while a task steps nd
	out   [Nodes]simrt.Sink
	timer [TimerHeartbeat + 1]rtapi.Timer
	gen   [TimerHeartbeat + 1]uint64
	fire  [TimerHeartbeat + 1]func()
	frame [frameSize]byte
	bufs  [1][]byte // Send's argument, kept so that a send allocates no slice for it
}

// RunSim runs the scenario with seed on the simrt simulator. It returns an
// error if the safety check fails.
func RunSim(seed uint64, cfg SimConfig) (Result, error) {
	run := runSim(seed, cfg)
	return run.res, run.err
}

func runSim(seed uint64, cfg SimConfig) *simRun {
	hold := holdTimeout
	if cfg.holdForever {
		hold = 0
	}
	r := deterministic.New(deterministic.Config{
		Seed:    seed,
		Network: simnet.Config{HoldTimeout: hold},
		Hooks:   deterministic.Hooks{Coroutines: cfg.Coroutines, EventLog: cfg.eventLog},
	})
	run := &simRun{cfg: cfg, check: NewChecker(), split: forever, heal: forever}
	r.Start(func(ctx *deterministic.Context) {
		run.root(ctx)
		run.res.Audit = ctx.Auditor().State()
		run.log = ctx.Auditor().Log()
	})
	run.res.finish(run.nodes, run.check)
	return run
}

// root builds the cluster, then splits and heals it on schedule, checking
// safety at the end of each phase.
func (run *simRun) root(ctx *deterministic.Context) {
	net := ctx.Network()
	net.SetDefaultLink(simnet.Link{Latency: MinDelay, Jitter: MaxDelay - MinDelay})
	run.t0 = ctx.Now().Add(setupTime)
	for i := range Nodes {
		hctx := ctx.WithHost(nodeHost(i)).Child("node").WithAttribute("id", strconv.Itoa(i))
		sn := &simNode{run: run, nd: NewNode(i, Nodes, ctx.Rand()), inbox: simrt.NewUnboundedChan[simEvent]()}
		sn.nd.anyVote = run.cfg.anyVote
		for k := TimerElection; k <= TimerHeartbeat; k++ {
			sn.fire[k] = func() { sn.inbox.TrySend(simEvent{timer: k, gen: sn.gen[k]}) }
		}
		run.nodes, run.sims = append(run.nodes, sn.nd), append(run.sims, sn)
		if !run.cfg.direct {
			l, err := hctx.Bind(nodeAddr(i))
			if err != nil {
				panic("electbench: bind: " + err.Error())
			}
			simrt.Spawn(hctx.Child("listener"), func(ctx simrt.Context) struct{} { sn.listen(ctx, l); return struct{}{} })
		}
		simrt.Spawn(hctx, func(ctx simrt.Context) struct{} { sn.loop(ctx); return struct{}{} })
	}
	if run.cfg.setupOnly {
		ctx.SleepUntil(run.t0)
		return
	}
	for _, at := range []time.Duration{SplitAt, HealAt, EndAt} {
		ctx.SleepUntil(run.t0.Add(at))
		if run.err = run.check.EndPhase(run.nodes); run.err != nil {
			return
		}
		for a := range Nodes {
			for b := a + 1; b < Nodes && !run.cfg.direct; b++ {
				if !crossesSplit(a, b) {
					continue
				}
				switch at {
				case SplitAt:
					net.Partition(nodeHost(a), nodeHost(b))
				case HealAt:
					net.Join(nodeHost(a), nodeHost(b))
				}
			}
		}
		switch at {
		case SplitAt:
			run.split = ctx.Now().Sub(run.t0)
			run.dir.cut, run.dir.gen = true, run.dir.gen+1
		case HealAt:
			run.heal = ctx.Now().Sub(run.t0)
			run.dir.cut = false
		}
	}
}

// listen accepts the node's inbound connections and starts a reader for
// each.
func (sn *simNode) listen(ctx simrt.Context, l simrt.Listener) {
	defer l.Close()
	for {
		_, sink, stream, err := l.Accept()
		if err != nil {
			return
		}
		sink.Close() // replies travel over the node's own connections
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { sn.read(ctx, stream); return struct{}{} })
	}
}

// read hands every message of one inbound connection to the inbox, until
// the connection breaks or sends a malformed frame.
func (sn *simNode) read(ctx simrt.Context, s simrt.Stream) {
	defer s.Close()
	for {
		b, err := s.Recv(frameSize)
		if err != nil {
			return
		}
		m, sent, err := decode(b)
		if err != nil || int(m.To) != sn.nd.ID() {
			return
		}
		run := sn.run
		if leaked(int(m.From), int(m.To), sent, ctx.Now().Sub(run.t0), run.split, run.heal) {
			run.res.Leaked++
		}
		if run.cfg.inboxHop {
			if sn.inbox.Send(ctx, simEvent{msg: m, sent: sent}) != nil {
				return
			}
			continue
		}
		sn.mu.Lock(ctx)
		run.res.Delivered++
		sn.nd.Step(m)
		sn.apply(ctx)
		sn.mu.Unlock()
	}
}

// loop is the node's task: it dials its peers, waits for the scenario to
// start, and then feeds the protocol its messages and timers.
func (sn *simNode) loop(ctx simrt.Context) {
	for to := range Nodes {
		if to != sn.nd.ID() && !sn.run.cfg.direct {
			sn.dial(ctx, to)
		}
	}
	if ctx.Now().After(sn.run.t0) {
		panic("electbench: the cluster took longer than setupTime to connect")
	}
	ctx.SleepUntil(sn.run.t0)
	sn.lock(ctx)
	sn.nd.Start()
	sn.apply(ctx)
	sn.unlock()
	for {
		ev, ok := sn.inbox.Recv(ctx)
		if !ok {
			return
		}
		sn.lock(ctx)
		if ev.timer != 0 {
			sn.nd.Tick(ev.timer, ev.gen)
		} else {
			sn.run.res.Delivered++
			sn.nd.Step(ev.msg)
		}
		sn.apply(ctx)
		sn.unlock()
	}
}

// lock takes mu when readers step the node too (the default); with
// inboxHop, or in the direct mode, which has no readers, only the node's
// task does, and it needs no lock.
func (sn *simNode) lock(ctx simrt.Context) {
	if sn.run.readersStep() {
		sn.mu.Lock(ctx)
	}
}

func (sn *simNode) unlock() {
	if sn.run.readersStep() {
		sn.mu.Unlock()
	}
}

// readersStep reports whether the reader tasks step the nodes.
func (run *simRun) readersStep() bool { return !run.cfg.inboxHop && !run.cfg.direct }

// apply carries out what the protocol's last call asked for, from the
// task ctx (the node's or a reader's), which holds mu (see lock).
func (sn *simNode) apply(ctx simrt.Context) {
	nd := sn.nd
	if nd.Won() {
		sn.run.check.Won(nd.Term(), nd.ID(), ctx.Now().Sub(sn.run.t0))
	}
	for _, m := range nd.Sends() {
		sn.send(ctx, m)
	}
	for _, t := range nd.Timers() {
		if old := sn.timer[t.Kind]; old != nil {
			old.Stop()
		}
		sn.gen[t.Kind] = t.Gen
		sn.timer[t.Kind] = ctx.AfterFunc(t.After, sn.fire[t.Kind])
	}
}

// send puts m on the connection to its peer, or loses it.
func (sn *simNode) send(ctx simrt.Context, m Message) {
	sn.run.res.Sent++
	if ctx.Rand().Float64() < LossRate {
		return
	}
	if sn.run.cfg.direct {
		sn.sendDirect(ctx, m)
		return
	}
	encode(sn.frame[:], m, ctx.Now().Sub(sn.run.t0))
	for attempt := 0; attempt < 2; attempt++ {
		s := sn.out[m.To]
		if s == nil {
			if s = sn.dial(ctx, int(m.To)); s == nil {
				return // the split cuts the way
			}
		}
		sn.bufs[0] = sn.frame[:]
		if s.Send(sn.bufs[:]...) == nil {
			return
		}
		s.Close() // reset by the split: redial once
		sn.out[m.To] = nil
	}
}

// dial connects to peer to from the task ctx, or returns nil when the way
// is cut.
func (sn *simNode) dial(ctx simrt.Context, to int) simrt.Sink {
	sink, stream, err := ctx.Dial(nodeAddr(to))
	if err != nil {
		return nil
	}
	stream.Close() // the peer answers over its own connection
	sn.out[to] = sink
	return sink
}
