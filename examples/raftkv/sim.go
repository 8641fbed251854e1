package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/nemesis"
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
	// YieldProbability is deterministic.Config.Scheduling.YieldProbability: zero is
	// the simulator's default, deterministic.NoYield turns scheduling
	// points off.
	YieldProbability float64

	// Coroutines, when set, lends the run the idle task coroutines of the
	// worker's earlier runs (one pool per worker: see pool.Coroutines).
	Coroutines *pool.Coroutines

	// NoSwarm turns the nemesis's swarm testing off: every seed draws from
	// every fault kind, evenly.
	NoSwarm bool

	// Scheduler and PCTDepth are deterministic.Config's: the scheduling
	// algorithm (Uniform by default, or PCT).
	Scheduler deterministic.Scheduler
	PCTDepth  int

	// Replay and Record are deterministic.Config's, for the whole run
	// (every epoch): a decision stream to replay, one to record into.
	Replay decision.Decider
	Record *decision.Stream

	// Schedule, when set, replaces the nemesis schedule the seed draws
	// (which is still drawn, so that the run's other choices are the
	// seed's): it is how a shrunk or saved schedule replays. Its heal must
	// be the run's (60% of Duration).
	Schedule *nemesis.Schedule

	// drawn, when set, receives the plan the run used (the nemesis
	// schedule after any Schedule override, the whole-cluster crashes).
	drawn *plan

	// faultKinds, when set, replaces the fault kinds the nemesis draws
	// from (faultKinds): tests run without clock faults this way.
	faultKinds []nemesis.Fault

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
	Seed       uint64
	SimTime    time.Duration // simulated time the run covered
	Ops        int           // client operations invoked
	Crashes    int           // whole-cluster crashes
	Faults     faultCounts   // faults the nemesis applied, by kind
	Checked    bool          // the history went through the linearizability check
	LeaseReads int           // reads the leaders served from their leases
	Failure    string        // "" when the run passed
	Audit      string        // the auditor's final state
	Raft       raftStats     // the nodes' calls into raft
	Visual     string        // path of the porcupine visualisation, if written
}

// sim is the harness of one run: the cluster, its clients and the fault
// schedule, across the whole-cluster crashes that split the run into
// epochs (one simulation each, resumed from the previous one's
// checkpoint, which carries every node's disk). Only the clients' state
// and the history live outside the simulated machines.
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
	faults   faultCounts // applied so far, across epochs
	auditor  *deterministic.Auditor
	// leaders is the leader of each term seen so far, across epochs, for
	// raft's election safety: at most one leader per term. Looked up,
	// never iterated.
	leaders map[uint64]uint64
	// lastTerm is the latest term that had a leader, and lastLeader that
	// leader, for lease safety (noteLeaseRead); leaseReads counts the
	// reads served from a lease.
	lastTerm, lastLeader uint64
	leaseReads           int
	// raft counts the nodes' calls into raft, across epochs.
	raft raftStats
}

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
		out.LeaseReads = s.leaseReads
		out.Crashes = s.epoch
		out.Faults = s.faults
		out.Raft = s.raft
	}()
	r := deterministic.New(deterministic.Config{
		Seed:       cfg.Seed,
		Timeout:    cfg.Duration + 10*time.Second,
		Network:    simnet.Config{HoldTimeout: 2 * time.Second},
		Replay:     cfg.Replay,
		Scheduling: deterministic.Scheduling{YieldProbability: cfg.YieldProbability, Scheduler: cfg.Scheduler, PCTDepth: cfg.PCTDepth},
		Hooks:      deterministic.Hooks{Coroutines: cfg.Coroutines, LogHandler: slogHandler{l: s.log}, Record: cfg.Record},
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

// override puts the run's Schedule, if it has one, in place of the drawn
// faults (its power-loss events are the whole-cluster crashes), and
// reports the plan to cfg.drawn.
func (s *sim) override(p *plan) error {
	if o := s.cfg.Schedule; o != nil {
		if o.Heal != p.sched.Heal {
			return fmt.Errorf("nemesis: the schedule heals at %v; a run of %v heals at %v (60%% of -duration)", o.Heal, s.cfg.Duration, p.sched.Heal)
		}
		p.setSchedule(*o)
	}
	if s.cfg.drawn != nil {
		*s.cfg.drawn = *p
	}
	return nil
}

// since returns the simulated time since the start of the run.
func (s *sim) since(c simrt.Clock) time.Duration { return c.Now().Sub(s.start) }

// runEpoch is the root of one simulation: it starts the cluster, the
// clients and the nemesis, and runs until the next planned whole-cluster
// crash or, in the last epoch, through the liveness phase: after the
// heal, every client must finish before the deadline.
func (s *sim) runEpoch(ctx *deterministic.Context) {
	s.auditor = ctx.Auditor()
	s.log.global = ctx // the root's clock is the global one
	if s.epoch == 0 {
		s.start = ctx.Now()
		s.log.start = s.start
		d := s.cfg.Duration
		s.healAt = s.start.Add(d * 6 / 10)
		s.stopAt = s.start.Add(d * 7 / 10)
		s.deadline = s.start.Add(d)
		p, err := drawPlan(ctx.Rand(), d, s.healAt.Sub(s.start), nodeNames(s.cfg.Nodes), s.cfg.faultKinds, !s.cfg.NoSwarm)
		if err != nil {
			s.finished, s.failure = true, "nemesis: "+err.Error()
			return
		}
		if err := s.override(&p); err != nil {
			s.finished, s.failure = true, err.Error()
			return
		}
		s.plan = p
		ctx.StorageFaultConfig().Write.RetentionRate = s.plan.retention
		s.log.printf(ctx, "seed %d, bugs %v: %d nodes, %d clients, crashes at %v, unsynced-write retention %v, faults heal at %v, %d faults (%v)",
			s.cfg.Seed, s.cfg.Bugs, s.cfg.Nodes, s.cfg.Clients, s.plan.crashes, s.plan.retention, s.healAt.Sub(s.start), len(p.sched.Events), p.sched.Kinds())
	} else {
		down := s.plan.downtime[s.epoch-1]
		s.log.printf(ctx, "cluster down for %v after crash %d", down, s.epoch)
		ctx.Sleep(down)
	}
	ctx.Network().SetDefaultLink(baseLink)
	c, err := newCluster(ctx, s)
	if err != nil {
		s.finished, s.failure = true, err.Error()
		return
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
	sched := after(s.plan.sched, s.since(ctx))
	if s.cfg.isolateAll {
		sched.Events = nil
		for _, n := range c.nodes {
			if err := ctx.Network().Isolate(n.Host()); err != nil {
				s.finished, s.failure = true, err.Error()
				return
			}
		}
	}
	nem, err := nemesis.Start(ctx, c.cluster(), sched)
	if err != nil {
		s.finished, s.failure = true, err.Error()
		return
	}
	defer func() { s.faults.add(nem.Effects()) }()

	if s.epoch < len(s.plan.crashes) {
		crashAt := s.start.Add(s.plan.crashes[s.epoch])
		if simrt.Select(ctx, done.OnFire(nil), simrt.After(ctx, crashAt.Sub(ctx.Now()), nil)) == 0 {
			s.log.printf(ctx, "every client finished")
			s.finished = true
			return
		}
		s.epoch++
		s.log.printf(ctx, "whole-cluster crash %d", s.epoch)
		return
	}
	err = nem.Liveness(ctx, s.deadline.Sub(s.healAt), func() bool { return remaining == 0 })
	s.finished = true
	if err == nil {
		s.log.printf(ctx, "every client finished")
		return
	}
	if s.failure == "" {
		s.failure = s.noProgress(err, nem)
	}
	s.log.printf(ctx, "%s", s.failure)
}

// noProgress describes the clients still waiting at the deadline, then the
// liveness error (every node's tasks with what each waits on) and the
// schedule.
func (s *sim) noProgress(err error, nem *nemesis.Nemesis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no progress: faults healed at %v, yet at %v", s.healAt.Sub(s.start), s.deadline.Sub(s.start))
	for _, c := range s.clients {
		if c.cur != nil {
			fmt.Fprintf(&b, "; client %d still waits on %v invoked at %v", c.id, c.cur.cmd, c.cur.call)
		}
	}
	fmt.Fprintf(&b, "\n%v\n%s", err, nem.Report())
	return b.String()
}

// electionSafety starts the failure of a run in which a term had two
// leaders.
const electionSafety = "election safety violation"

// noteLeader records that node id became leader in term: a second leader
// of one term fails the run (raft's election safety), whatever the
// clients saw.
func (s *sim) noteLeader(ctx simrt.Context, id, term uint64) {
	if term > s.lastTerm {
		s.lastTerm, s.lastLeader = term, id
	}
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

// leaseSafety starts the failure of a run in which a leader served a read
// from its lease after a leader of a later term was elected.
const leaseSafety = "lease safety violation"

// noteLeaseRead records that node id served a read from its lease in
// term. The lease's argument (lease.go) is that no other leader can be
// elected before the lease runs out: a lease read after a leader of a
// later term was elected fails the run, whether or not a client saw a
// stale value (the later leader may not have committed a write yet).
func (s *sim) noteLeaseRead(ctx simrt.Context, id, term uint64) {
	s.leaseReads++
	if s.lastTerm > term && s.failure == "" {
		s.failure = fmt.Sprintf("%s: n%d served a read from its lease of term %d after n%d was elected leader of term %d (at %v)",
			leaseSafety, id, term, s.lastLeader, s.lastTerm, s.since(ctx))
		s.log.printf(ctx, "%s", s.failure)
	}
}

// nodeNames are the nodes' names, n1 to nN.
func nodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i+1)
	}
	return names
}

// cluster is the nodes of one epoch, each a simulated machine whose main
// is runNode.
type cluster struct {
	ctx   *deterministic.Context
	nodes []*deterministic.Node
}

func newCluster(ctx *deterministic.Context, s *sim) (*cluster, error) {
	c := &cluster{ctx: ctx}
	for id := uint64(1); id <= uint64(s.cfg.Nodes); id++ {
		cfg := nodeConfig{id: id, nodes: s.cfg.Nodes, clients: s.cfg.Clients, bugs: s.cfg.Bugs, log: s.log, stats: &s.raft}
		cfg.onLeader = func(id, term uint64) { s.noteLeader(ctx, id, term) }
		cfg.onLeaseRead = func(id, term uint64) { s.noteLeaseRead(ctx, id, term) }
		n, err := ctx.AddNode(deterministic.NodeConfig{
			Name: fmt.Sprintf("n%d", id),
			Host: nodeHost(id),
			Main: func(ctx simrt.Context) { runNode(ctx, cfg) },
		})
		if err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}
	return c, nil
}

// cluster returns the nodes and the network as the nemesis drives them:
// a link it restores after a latency or loss fault is baseLink.
func (c *cluster) cluster() nemesis.Cluster {
	nc := nemesis.ClusterOf(c.ctx)
	nc.Link = baseLink
	return nc
}
