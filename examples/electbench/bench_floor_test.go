package electbench

import (
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

// runAnatomy is what the simulator did for one run of the simrt driver:
// its audited events by label and its random decisions by kind.
type runAnatomy struct {
	res       Result
	labels    map[audit.Label]int
	audited   int // every audited event
	decisions map[decision.Kind]int
	draws     int // every ChaCha8 draw (every decision)
}

// countedRun is runSim with the default SimConfig plus the event log and
// the decision stream on: it runs the same seed the same way
// (TestCountedRunIsRunSim holds it to RunSim's result and audit state) and
// counts what the simulator did.
func countedRun(seed uint64) runAnatomy {
	rec := &decision.Stream{}
	r := deterministic.New(deterministic.Config{
		Seed:    seed,
		Network: simnet.Config{HoldTimeout: holdTimeout},
		Hooks:   deterministic.Hooks{EventLog: -1, Record: rec},
	})
	run := &simRun{cfg: SimConfig{eventLog: -1}, check: NewChecker(), split: forever, heal: forever}
	r.Start(func(ctx *deterministic.Context) {
		run.root(ctx)
		run.res.Audit = ctx.Auditor().State()
		run.log = ctx.Auditor().Log()
	})
	run.res.finish(run.nodes, run.check)
	a := runAnatomy{res: run.res, labels: map[audit.Label]int{}, decisions: map[decision.Kind]int{}}
	if run.err != nil {
		a.res.Audit = "error: " + run.err.Error()
	}
	for _, e := range run.log.Events() {
		a.labels[e.Label]++
		a.audited++
	}
	for _, d := range rec.Decisions {
		a.decisions[d.Kind]++
	}
	a.draws = len(rec.Decisions)
	return a
}

// TestCountedRunIsRunSim: the counting run is the run RunSim makes (same
// result, same audit state), so its counts are the run's; and its counts
// add up.
func TestCountedRunIsRunSim(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 3} {
		want, err := RunSim(seed, SimConfig{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := countedRun(seed)
		if got.res != want {
			t.Fatalf("seed %d: counted run %+v, RunSim %+v", seed, got.res, want)
		}
		t.Logf("seed %d: %d resumes, %d audited events, %d timers, %d draws (%d schedule, %d spawn, %d rand), %d/%d sends/receives attempted, %d dials attempted",
			seed, got.labels[audit.ProcessTask], got.audited, got.labels[audit.Timer], got.draws,
			got.decisions[decision.KindSchedule], got.decisions[decision.KindSpawn], got.decisions[decision.KindRand],
			got.labels[audit.SendAttempt], got.labels[audit.RecvAttempt], got.labels[audit.DialAttempt])
		sum := 0
		for _, n := range got.labels {
			sum += n
		}
		if sum != got.audited || got.labels[audit.ProcessTask] == 0 || got.labels[audit.Rand] > got.draws || got.draws == 0 {
			t.Fatalf("seed %d: labels sum to %d of %d events, %d resumes, %d audited draws of %d", seed, sum, got.audited, got.labels[audit.ProcessTask], got.labels[audit.Rand], got.draws)
		}
	}
}

// floorRuns is how many seeds BenchmarkRunFloor counts (untimed).
const floorRuns = 20

// BenchmarkRunFloor composes the task model's floor for an electbench run
// of the default simrt driver from parts measured in the same run, beside
// the run's own cost and the bare event loop's (floor.go). Before the
// timed loop it counts, over seeds 0..floorRuns-1, what the simulator does
// per run (task resumes, audited events by label, timers set, random
// decisions by kind) and measures each unit's floor (unitfloor.Units) over the
// run's 31 tasks. The timed loop alternates the event loop (RunFloor) and
// simrt (RunSim) seed by seed, as BenchmarkPaired does, wall clock and
// process CPU. The protocol's own work is the loop's run time (the same
// protocol work, with the loop's heap and draws in it). It reports each
// count, each unit, their products, sim-floor-ms (their sum), floor-ms
// (that plus the loop's CPU time), floor/loop (the task model's floor as a
// multiple of the loop), lean-floor/loop (the same less one unit timer per
// loop event, the loop's heap being in both terms) and simrt/floor
// (simrt's CPU time over floor-ms); ns/op is one loop run and one simrt
// run.
func BenchmarkRunFloor(b *testing.B) {
	var (
		audited, draws int
		loopEvents     int // events the event loop runs, the same seeds
		labelSum       = map[audit.Label]int{}
		decisions      = map[decision.Kind]int{}
	)
	for seed := range uint64(floorRuns) {
		a := countedRun(seed)
		for l, n := range a.labels {
			labelSum[l] += n
		}
		for k, n := range a.decisions {
			decisions[k] += n
		}
		audited += a.audited
		draws += a.draws
		loopEvents += runFloor(seed, false).events
	}
	perRun := func(n int) float64 { return float64(n) / floorRuns }
	resumes, timers := perRun(labelSum[audit.ProcessTask]), perRun(labelSum[audit.Timer])
	events, drawn := perRun(audited), perRun(draws)

	// The driver's tasks: the root, and per node its task, its listener
	// and a reader for each of its four peers' connections.
	const tasks = 1 + Nodes*(2+Nodes-1)
	u := unitfloor.Measure(time.Now, tasks, 32)
	sim := resumes*u.Resume + events*u.Event + timers*u.Timer + drawn*u.Draw

	coros := &pool.Coroutines{}
	defer coros.Close()
	var wall, cpu [2]time.Duration
	seed := uint64(0)
	b.ResetTimer()
	for b.Loop() {
		for i := range 2 {
			t0, c0 := time.Now(), cpuTime()
			var err error
			if i == 0 {
				_, err = RunFloor(seed)
			} else {
				_, err = RunSim(seed, SimConfig{Coroutines: coros})
			}
			if err != nil {
				b.Fatalf("driver %d, seed %d: %v", i, seed, err)
			}
			wall[i], cpu[i] = wall[i]+time.Since(t0), cpu[i]+cpuTime()-c0
		}
		seed++
	}
	b.StopTimer()
	n := float64(seed)
	loopNs, simrtNs := float64(cpu[0].Nanoseconds())/n, float64(cpu[1].Nanoseconds())/n
	if cpu[0] == 0 { // no process CPU clock here: wall clock
		loopNs, simrtNs = float64(wall[0].Nanoseconds())/n, float64(wall[1].Nanoseconds())/n
	}
	floor := loopNs + sim
	// The loop's own heap is in loopNs and in the timers' term: the floor
	// with one unit timer per loop event taken out (an approximation, the
	// loop's heap holds closures).
	lean := floor - perRun(loopEvents)*u.Timer

	b.ReportMetric(resumes, "resumes/run")
	b.ReportMetric(events, "audited/run")
	b.ReportMetric(timers, "timers/run")
	b.ReportMetric(drawn, "draws/run")
	labels := slices.Sorted(func(yield func(audit.Label) bool) {
		for l := range labelSum {
			if !yield(l) {
				return
			}
		}
	})
	for _, l := range labels {
		if l != audit.ProcessTask && l != audit.Timer {
			b.ReportMetric(perRun(labelSum[l]), string(l)+"/run")
		}
	}
	for k := decision.KindSchedule; k <= decision.KindBuggify; k++ {
		if decisions[k] > 0 {
			b.ReportMetric(perRun(decisions[k]), "draw-"+k.String()+"/run")
		}
	}
	b.ReportMetric(u.Resume, "resume-ns")
	b.ReportMetric(u.Event, "event-ns")
	b.ReportMetric(u.Timer, "timer-ns")
	b.ReportMetric(u.Draw, "draw-ns")
	b.ReportMetric(resumes*u.Resume/1e6, "resumes-ms")
	b.ReportMetric(events*u.Event/1e6, "audit-ms")
	b.ReportMetric(timers*u.Timer/1e6, "timers-ms")
	b.ReportMetric(drawn*u.Draw/1e6, "draws-ms")
	b.ReportMetric(sim/1e6, "sim-floor-ms")
	b.ReportMetric(loopNs/1e6, "loop-ms")
	b.ReportMetric(floor/1e6, "floor-ms")
	b.ReportMetric(simrtNs/1e6, "simrt-ms")
	b.ReportMetric(floor/loopNs, "floor/loop")
	b.ReportMetric(perRun(loopEvents), "loop-events/run")
	b.ReportMetric(lean/loopNs, "lean-floor/loop")
	b.ReportMetric(simrtNs/floor, "simrt/floor")
	b.ReportMetric(simrtNs/loopNs, "simrt/loop")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "simrt/loop-wall")
}
