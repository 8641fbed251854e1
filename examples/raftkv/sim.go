package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// simConfig describes one run.
type simConfig struct {
	Seed     uint64
	Bugs     bugSet
	Nodes    int           // cluster size; 5 by default
	Clients  int           // concurrent clients; 3 by default
	Duration time.Duration // simulated length of the run; 10s by default
	Verbose  io.Writer     // where to log the run's events; nil: nowhere
	OutDir   string        // where to write the visualisation of a failure; "": nowhere

	// Coroutines, when set, lends the run the idle task coroutines of the
	// worker's earlier runs (one pool per worker: see deterministic.Coroutines).
	Coroutines *deterministic.Coroutines

	// isolateAll cuts every node off for the whole run, so that no client
	// can finish: it exists to test the liveness check.
	isolateAll bool
}

func (c simConfig) withDefaults() simConfig {
	if c.Nodes == 0 {
		c.Nodes = 5
	}
	if c.Clients == 0 {
		c.Clients = 3
	}
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	return c
}

// outcome is what one run found.
type outcome struct {
	Seed    uint64
	SimTime time.Duration // simulated time the run covered
	Ops     int           // client operations invoked
	Crashes int           // whole-cluster crashes
	Faults  faultCounts   // faults the nemesis injected, by kind
	Checked bool          // the history went through the linearizability check
	Failure string        // "" when the run passed
	Audit   string        // the auditor's final state
	Visual  string        // path of the porcupine visualisation, if written
}

// sim is the harness of one run: the cluster, its clients and the fault
// schedule, across the whole-cluster crashes that split the run into
// epochs (one simulation each, resumed from the previous one's
// checkpoint). Only the clients' state and the history live outside the
// simulated machines.
type sim struct {
	cfg      simConfig
	log      *logger
	start    time.Time
	healAt   time.Time // every fault is healed by then
	stopAt   time.Time // clients invoke no new operation from then on
	deadline time.Time // every client must have finished by then
	plan     plan
	epoch    int
	clients  []*client
	history  []*op
	finished bool
	failure  string
	faults   faultCounts // injected so far, across epochs
	auditor  *deterministic.Auditor
	// leaders is the leader of each term seen so far, across epochs, for
	// raft's election safety: at most one leader per term. Looked up,
	// never iterated.
	leaders map[uint64]uint64
}

// faultCounts counts injected faults by kind.
type faultCounts [numFaultKinds]int

// baseLink is the network between every two hosts when no fault is active.
var baseLink = simnet.Link{Latency: time.Millisecond, Jitter: time.Millisecond}

// runSeed runs one seed to the end and checks it.
func runSeed(cfg simConfig) (out outcome) {
	cfg = cfg.withDefaults()
	s := &sim{cfg: cfg, log: &logger{w: cfg.Verbose}, leaders: make(map[uint64]uint64)}
	for i := range cfg.Clients {
		s.clients = append(s.clients, newClient(i, cfg.Nodes, s))
	}
	out.Seed = cfg.Seed
	defer func() {
		if r := recover(); r != nil {
			out.Failure = fmt.Sprintf("panic: %v", r)
		}
		if s.auditor != nil {
			out.Audit = s.auditor.State()
		}
		out.Ops = len(s.history)
		out.Crashes = s.epoch
		out.Faults = s.faults
	}()
	r := deterministic.New(deterministic.Config{
		Seed:       cfg.Seed,
		Timeout:    cfg.Duration + 10*time.Second,
		Network:    simnet.Config{HoldTimeout: 2 * time.Second},
		Coroutines: cfg.Coroutines,
	})
	for {
		cp := r.StartAndRecover(s.runEpoch)
		if s.finished {
			out.SimTime = cp.Time().Sub(s.start)
			break
		}
		r = deterministic.FromCheckpoint(cp)
	}
	out.Failure = s.failure
	if out.Failure == "" {
		out.Checked = true
		out.Failure, out.Visual = check(s.history, cfg)
	}
	return out
}

// since returns the simulated time since the start of the run.
func (s *sim) since(c simrt.Clock) time.Duration { return c.Now().Sub(s.start) }

// runEpoch is the root of one simulation: it starts the cluster and the
// clients and runs until every client has finished, the next planned
// whole-cluster crash, or the deadline.
func (s *sim) runEpoch(ctx *deterministic.Context) {
	s.auditor = ctx.Auditor()
	if s.epoch == 0 {
		s.start = ctx.Now()
		s.log.start = s.start
		d := s.cfg.Duration
		s.healAt = s.start.Add(d * 6 / 10)
		s.stopAt = s.start.Add(d * 7 / 10)
		s.deadline = s.start.Add(d)
		s.plan = drawPlan(ctx.Rand(), d)
		ctx.StorageFaultConfig().Write.RetentionRate = s.plan.retention
		s.log.printf(ctx, "seed %d, bugs %v: %d nodes, %d clients, crashes at %v, unsynced-write retention %v, faults heal at %v",
			s.cfg.Seed, s.cfg.Bugs, s.cfg.Nodes, s.cfg.Clients, s.plan.crashes, s.plan.retention, s.healAt.Sub(s.start))
	} else {
		down := s.plan.downtime[s.epoch-1]
		s.log.printf(ctx, "cluster down for %v after crash %d", down, s.epoch)
		ctx.Sleep(down)
	}
	ctx.Network().SetDefaultLink(baseLink)
	c := newCluster(ctx, s)
	for id := 1; id <= s.cfg.Nodes; id++ {
		c.start(uint64(id))
	}

	done := simrt.NewSignal()
	remaining := 0
	for _, cl := range s.clients {
		if cl.finished {
			continue
		}
		remaining++
		cctx := ctx.WithHost(clientHost(cl.id)).Child("client")
		simrt.Spawn(cctx, func(ctx simrt.Context) struct{} {
			cl.run(ctx, s.stopAt)
			cl.finished = true
			if remaining--; remaining == 0 {
				done.Fire(0)
			}
			return struct{}{}
		})
	}
	if remaining == 0 {
		done.Fire(0)
	}
	if s.cfg.isolateAll {
		for id := 1; id <= s.cfg.Nodes; id++ {
			ctx.Network().Isolate(nodeHost(uint64(id)))
		}
	} else if ctx.Now().Before(s.healAt) {
		simrt.Spawn(ctx.Child("nemesis"), func(simrt.Context) struct{} { s.nemesis(ctx, c); return struct{}{} })
	}

	end, crash := s.deadline, false
	if s.epoch < len(s.plan.crashes) {
		end, crash = s.start.Add(s.plan.crashes[s.epoch]), true
	}
	if simrt.Select(ctx, done.OnFire(nil), simrt.After(ctx, end.Sub(ctx.Now()), nil)) == 0 {
		s.log.printf(ctx, "every client finished")
		s.finished = true
		return
	}
	if crash {
		s.epoch++
		s.log.printf(ctx, "whole-cluster crash %d", s.epoch)
		return
	}
	s.finished = true
	if s.failure == "" {
		s.failure = s.noProgress(ctx)
	}
	s.log.printf(ctx, "%s", s.failure)
}

// electionSafety starts the failure of a run in which a term had two
// leaders.
const electionSafety = "election safety violation"

// noteLeader records that node id became leader in term: a second leader
// of one term fails the run (raft's election safety), whatever the
// clients saw.
func (s *sim) noteLeader(ctx simrt.Context, id, term uint64) {
	prev, ok := s.leaders[term]
	if !ok {
		s.leaders[term] = id
		return
	}
	if prev != id && s.failure == "" {
		s.failure = fmt.Sprintf("%s: term %d has two leaders, n%d and n%d (at %v)", electionSafety, term, prev, id, s.since(ctx))
		s.log.printf(ctx, "%s", s.failure)
	}
}

// noProgress describes the clients still waiting at the deadline, and
// every task of the run with what it waits on.
func (s *sim) noProgress(ctx *deterministic.Context) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no progress: faults healed at %v, yet at %v", s.healAt.Sub(s.start), s.deadline.Sub(s.start))
	for _, c := range s.clients {
		if c.cur != nil {
			fmt.Fprintf(&b, "; client %d still waits on %v invoked at %v", c.id, c.cur.cmd, c.cur.call)
		}
	}
	for _, t := range ctx.Tasks() {
		fmt.Fprintf(&b, "\n  %s", t.String(ctx.Now()))
	}
	return b.String()
}

// cluster is the nodes of one epoch: each host's listener runs for the
// whole epoch, while the node process on it may crash and restart.
type cluster struct {
	ctx      *deterministic.Context
	sim      *sim
	accepted []*simrt.Chan[conn]
	procs    []*simrt.Handle[struct{}]
}

func newCluster(ctx *deterministic.Context, s *sim) *cluster {
	c := &cluster{ctx: ctx, sim: s}
	for id := 1; id <= s.cfg.Nodes; id++ {
		accepted := simrt.NewChan[conn](64)
		c.accepted = append(c.accepted, accepted)
		c.procs = append(c.procs, nil)
		hctx := ctx.WithHost(nodeHost(uint64(id))).Child("listener")
		simrt.Spawn(hctx, func(ctx simrt.Context) struct{} { listen(ctx, uint64(id), accepted); return struct{}{} })
	}
	return c
}

// start starts node id's process.
func (c *cluster) start(id uint64) {
	hctx := c.ctx.WithHost(nodeHost(id)).Child("node").WithAttribute("id", fmt.Sprint(id))
	cfg := nodeConfig{id: id, nodes: c.sim.cfg.Nodes, clients: c.sim.cfg.Clients, bugs: c.sim.cfg.Bugs, log: c.sim.log,
		onLeader: func(id, term uint64) { c.sim.noteLeader(hctx, id, term) }}
	accepted := c.accepted[id-1]
	c.procs[id-1] = simrt.Spawn(hctx, func(ctx simrt.Context) struct{} { runNode(ctx, cfg, accepted); return struct{}{} })
}

// crash kills node id's process: its tasks are unwound, its memory lost,
// and its log keeps what it wrote (a process crash, not a power loss).
func (c *cluster) crash(id uint64) {
	if h := c.procs[id-1]; h != nil {
		h.Abort()
		c.procs[id-1] = nil
	}
}
