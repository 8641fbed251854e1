package main

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/examples/internal/unitfloor"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/telemetry/audit"
)

// seedAnatomy is what the simulator did for one seed: its audited events
// by label and its random decisions by kind.
type seedAnatomy struct {
	out       outcome
	labels    map[audit.Label]int
	audited   int                 // every audited event
	bytes     int                 // bytes of the audited events' fields
	byLabel   map[audit.Label]int // those bytes by label
	decisions map[decision.Kind]int
	draws     int // every ChaCha8 draw (every decision)
}

// countedRun is runSeed with the event log and the decision stream on, and
// without the linearizability check: it runs the same seed the same way
// (TestCountedRunIsRunSeed holds it to runSeed's audit state and raft
// counts) and counts what the simulator did.
func countedRun(cfg simConfig) seedAnatomy {
	cfg = cfg.withDefaults()
	s := &sim{cfg: cfg, log: &logger{w: cfg.Verbose}, leaders: make(map[uint64]uint64)}
	for i := range cfg.Clients {
		s.clients = append(s.clients, newClient(i, cfg.Nodes, s))
	}
	rec := &decision.Stream{}
	r := deterministic.New(deterministic.Config{
		Seed:    cfg.Seed,
		Timeout: cfg.Duration + 10*time.Second,
		Network: simnet.Config{HoldTimeout: 2 * time.Second},
		Hooks:   deterministic.Hooks{Coroutines: cfg.Coroutines, LogHandler: slogHandler{l: s.log}, EventLog: -1, Record: rec},
	})
	var a seedAnatomy
	a.out.Seed = cfg.Seed
	var cp *deterministic.Checkpoint
	for {
		cp = r.StartAndRecover(s.runEpoch)
		if s.finished {
			a.out.SimTime = cp.Time().Sub(s.start)
			break
		}
		r = deterministic.FromCheckpoint(cp)
	}
	aud := cp.Auditor()
	a.out.Audit, a.out.Raft, a.out.Failure, a.out.Ops = aud.State(), s.raft, s.failure, len(s.history)
	a.labels, a.byLabel = map[audit.Label]int{}, map[audit.Label]int{}
	for _, e := range aud.Log().Events() {
		a.labels[e.Label]++
		a.audited++
		for _, f := range e.Fields {
			a.bytes += len(f)
			a.byLabel[e.Label] += len(f)
		}
	}
	a.decisions = map[decision.Kind]int{}
	for _, d := range rec.Decisions {
		a.decisions[d.Kind]++
	}
	a.draws = len(rec.Decisions)
	return a
}

// TestCountedRunIsRunSeed: the counting run is the seed runSeed runs (same
// audit state, same calls into raft, same operations), so its counts are
// the seed's; and its counts add up.
func TestCountedRunIsRunSeed(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3} {
		want := runSeed(simConfig{Seed: seed})
		got := countedRun(simConfig{Seed: seed})
		if got.out.Audit != want.Audit || got.out.Raft != want.Raft || got.out.Ops != want.Ops || got.out.SimTime != want.SimTime {
			t.Fatalf("seed %d: counted run %s %+v ops %d %v, runSeed %s %+v ops %d %v", seed,
				got.out.Audit, got.out.Raft, got.out.Ops, got.out.SimTime, want.Audit, want.Raft, want.Ops, want.SimTime)
		}
		t.Logf("seed %d: %d resumes, %d audited events (%d bytes), %d timers, %d draws (%d yield, %d schedule, %d fault, %d rand), %d/%d sends/receives attempted, %d writes, %d spawns",
			seed, got.labels[audit.ProcessTask], got.audited, got.bytes, got.labels[audit.Timer], got.draws,
			got.decisions[decision.KindYield], got.decisions[decision.KindSchedule], got.decisions[decision.KindFault], got.decisions[decision.KindRand],
			got.labels[audit.SendAttempt], got.labels[audit.RecvAttempt], got.labels[audit.WriteAt], got.labels[audit.Spawn])
		sum := 0
		for _, n := range got.labels {
			sum += n
		}
		if sum != got.audited || got.labels[audit.ProcessTask] == 0 || got.labels[audit.Rand] > got.draws {
			t.Fatalf("seed %d: labels sum to %d of %d events, %d resumes, %d audited draws of %d", seed, sum, got.audited, got.labels[audit.ProcessTask], got.labels[audit.Rand], got.draws)
		}
	}
}

// floorRaftkvShare is the share of a seed's CPU that is raftkv's own code
// and the check (clients, nodes and transport outside raft and the wire
// codec, the log, the harness, porcupine), from a CPU profile of
// BenchmarkSeed charged by innermost non-standard-library frame: the
// command is in docs/PERFORMANCE.md ("raftkv seed"). The default is the
// 2026-12-02 profile's (1,000 seeds): raftkv 11.3% plus porcupine 0.6%.
var floorRaftkvShare = flag.Float64("floor.raftkv", 0.119, "BenchmarkSeedFloor: share of a seed's CPU that is raftkv's own code and check")

// floorSeeds is how many seeds BenchmarkSeedFloor counts (untimed), and
// floorRaftRuns how many runs of the raft driver it times.
const floorSeeds, floorRaftRuns = 10, 30

// BenchmarkSeedFloor composes the task model's floor for a raftkv seed
// from parts measured in the same run, beside the seed's own cost (ns/op:
// one whole seed, as BenchmarkSeed runs it). Before the timed loop it
// counts, over seeds 0..floorSeeds-1, what the simulator does per seed
// (task resumes, audited events by label, timers set, random decisions by
// kind), measures each unit's floor (unitfloor.Units), and times raft with
// raftkv's codec doing a seed's raft work (BenchmarkRaftAlone's "codec"
// driver). It reports each count, each unit, their products, raft's time,
// raftkv's own code (the -floor.raftkv share of the seeds timed here),
// and floor-ms: their sum, with floor-seeds/s its inverse and
// floor/seed its ratio to the seed's measured cost.
func BenchmarkSeedFloor(b *testing.B) {
	var (
		per       seedAnatomy
		raftWant  raftStats
		labelSum  = map[audit.Label]int{}
		bytesSum  = map[audit.Label]int{}
		decisions = map[decision.Kind]int{}
	)
	for seed := range uint64(floorSeeds) {
		a := countedRun(simConfig{Seed: seed})
		if a.out.Failure != "" {
			b.Fatalf("seed %d: %s", seed, a.out.Failure)
		}
		for l, n := range a.labels {
			labelSum[l] += n
		}
		for l, n := range a.byLabel {
			bytesSum[l] += n
		}
		for k, n := range a.decisions {
			decisions[k] += n
		}
		per.audited += a.audited
		per.bytes += a.bytes
		per.draws += a.draws
		raftWant.add(a.out.Raft)
	}
	raftWant = raftWant.per(floorSeeds)
	perSeed := func(n int) float64 { return float64(n) / floorSeeds }
	resumes := perSeed(labelSum[audit.ProcessTask])
	timers := perSeed(labelSum[audit.Timer])
	audited := perSeed(per.audited)
	draws := perSeed(per.draws)
	hashed := perSeed(per.bytes)
	// A payload moved once: each message sent, each write to storage.
	copied := perSeed(bytesSum[audit.SendAttempt] + bytesSum[audit.WriteAt])

	u := unitfloor.Measure(time.Now, 64, 64)

	// Raft with the codec doing a seed's raft work: the mean of
	// BenchmarkRaftAlone's "codec" driver over floorRaftRuns seeds (a
	// mean, not a least, so that raft's share of the collector is in it).
	t0 := time.Now()
	for i := range floorRaftRuns {
		d := newRaftDriver(uint64(i), raftWant, true)
		d.run()
	}
	raftNs := float64(time.Since(t0).Nanoseconds()) / floorRaftRuns

	sim := resumes*u.Resume + audited*u.Event + timers*u.Timer + draws*u.Draw + hashed*u.Hash + copied*u.Copy
	floor := raftNs + sim // and raftkv's own, once the seeds are timed

	coros := &pool.Coroutines{}
	defer coros.Close()
	seed := uint64(0)
	b.ResetTimer()
	for b.Loop() {
		o := runSeed(simConfig{Seed: seed, Coroutines: coros})
		if o.Failure != "" {
			b.Fatalf("seed %d: %s", seed, o.Failure)
		}
		seed++
	}
	b.StopTimer()
	seedNs := float64(b.Elapsed().Nanoseconds()) / float64(seed)
	own := *floorRaftkvShare * seedNs
	floor += own

	b.ReportMetric(resumes, "resumes/seed")
	b.ReportMetric(audited, "audited/seed")
	b.ReportMetric(hashed, "audited-bytes/seed")
	b.ReportMetric(copied, "copied-bytes/seed")
	b.ReportMetric(timers, "timers/seed")
	b.ReportMetric(draws, "draws/seed")
	labels := slices.Sorted(func(yield func(audit.Label) bool) {
		for l := range labelSum {
			if !yield(l) {
				return
			}
		}
	})
	for _, l := range labels {
		if l != audit.ProcessTask && l != audit.Timer {
			b.ReportMetric(perSeed(labelSum[l]), string(l)+"/seed")
		}
	}
	for k := decision.KindSchedule; k <= decision.KindBuggify; k++ {
		if decisions[k] > 0 {
			b.ReportMetric(perSeed(decisions[k]), "draw-"+k.String()+"/seed")
		}
	}
	b.ReportMetric(u.Resume, "resume-ns")
	b.ReportMetric(u.Event, "event-ns")
	b.ReportMetric(u.Timer, "timer-ns")
	b.ReportMetric(u.Draw, "draw-ns")
	b.ReportMetric(u.Hash, "hash-ns/byte")
	b.ReportMetric(u.Copy, "copy-ns/byte")
	b.ReportMetric(resumes*u.Resume/1e6, "resumes-ms")
	b.ReportMetric(audited*u.Event/1e6, "audit-ms")
	b.ReportMetric(timers*u.Timer/1e6, "timers-ms")
	b.ReportMetric(draws*u.Draw/1e6, "draws-ms")
	b.ReportMetric(hashed*u.Hash/1e6, "hash-ms")
	b.ReportMetric(copied*u.Copy/1e6, "copy-ms")
	b.ReportMetric(raftNs/1e6, "raft-codec-ms")
	b.ReportMetric(sim/1e6, "sim-floor-ms")
	b.ReportMetric(own/1e6, "raftkv-ms")
	b.ReportMetric(floor/1e6, "floor-ms")
	b.ReportMetric(floor/seedNs, "floor/seed")
	b.ReportMetric(seedNs/1e6, "seed-ms")
	b.ReportMetric(1e9/floor, "floor-seeds/s")
	b.ReportMetric(1e9/seedNs, "seeds/s")
}
