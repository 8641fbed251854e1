package electbench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic/pool"
)

// runner runs one seed; each worker goroutine of a benchmark makes its own
// (a simrt runner keeps the worker's coroutine pool).
type runner func(seed uint64) (Result, error)

// benchDrivers make the runners of the two drivers.
var benchDrivers = []struct {
	name   string
	runner func() (runner, func())
}{
	{"floor", func() (runner, func()) { return RunFloor, func() {} }},
	{"simrt", func() (runner, func()) {
		coros := &pool.Coroutines{}
		return func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{Coroutines: coros}) }, coros.Close
	}},
}

// tally sums the work of the runs of a benchmark.
type tally struct {
	runs, sent, delivered, elections atomic.Int64
}

func (t *tally) add(r Result) {
	t.runs.Add(1)
	t.sent.Add(int64(r.Sent))
	t.delivered.Add(int64(r.Delivered))
	t.elections.Add(int64(r.Elections))
}

// report reports the runs' figures; wall and cpu are the wall-clock and
// the process CPU time they took.
func (t *tally) report(b *testing.B, wall, cpu time.Duration) {
	n := float64(t.runs.Load())
	b.ReportMetric(float64(wall.Nanoseconds())/1e6/n, "ms/run")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/n, "cpu-ms/run")
	b.ReportMetric(n/wall.Seconds(), "seeds/s")
	b.ReportMetric(float64(t.sent.Load())/n, "sent/run")
	b.ReportMetric(float64(t.delivered.Load())/n, "delivered/run")
	b.ReportMetric(float64(t.elections.Load())/n, "elections/run")
}

// BenchmarkRun runs whole seeds of the scenario on one goroutine, the two
// drivers in turn under each core count: ms per run, seeds per second, the
// work per run, and (with -benchmem) allocations per run. Compare ratios
// within one run of the benchmark; the machine's load moves both.
func BenchmarkRun(b *testing.B) {
	for _, d := range benchDrivers {
		b.Run(d.name, func(b *testing.B) {
			run, done := d.runner()
			defer done()
			var t tally
			seed := uint64(0)
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				r, err := run(seed)
				if err != nil {
					b.Fatalf("seed %d: %v", seed, err)
				}
				t.add(r)
				seed++
			}
			t.report(b, time.Since(start), cpuTime()-cpu)
		})
	}
}

// BenchmarkSweep runs seeds on a pool of workers, one per core, with
// GOMAXPROCS set to 1 and then 2: seeds per second on one and two cores.
func BenchmarkSweep(b *testing.B) {
	for _, cores := range []int{1, 2} {
		for _, d := range benchDrivers {
			b.Run(fmt.Sprintf("cores=%d/%s", cores, d.name), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cores))
				var t tally
				var next atomic.Uint64
				var failed atomic.Value
				var wg sync.WaitGroup
				b.ResetTimer()
				start, cpu := time.Now(), cpuTime()
				for range cores {
					wg.Go(func() {
						run, done := d.runner()
						defer done()
						for seed := next.Add(1) - 1; seed < uint64(b.N); seed = next.Add(1) - 1 {
							r, err := run(seed)
							if err != nil {
								failed.CompareAndSwap(nil, fmt.Errorf("seed %d: %w", seed, err))
								return
							}
							t.add(r)
						}
					})
				}
				wg.Wait()
				wall, cpuUsed := time.Since(start), cpuTime()-cpu
				b.StopTimer()
				if err, _ := failed.Load().(error); err != nil {
					b.Fatal(err)
				}
				t.report(b, wall, cpuUsed)
			})
		}
	}
}

// BenchmarkPaired alternates the drivers seed by seed on one goroutine
// (the floor, simrt, simrt's direct mode, see simdirect.go, and its
// inboxHop mode, see SimConfig) and reports each one's ms per run, wall
// clock and process CPU time, and their ratios to the floor, so that all
// of them see the same load on a shared machine. The direct mode's ratio
// is what the task model costs without the network stack: the floor under
// simrt's own floor; the inboxHop mode's is simrt with a second resume
// per delivered message (the reader hands it to the node's task). (The collector's work is shared out
// between them by when it runs, not by whose garbage it collects;
// BenchmarkRun keeps them apart.)
func BenchmarkPaired(b *testing.B) {
	runFloor, _ := benchDrivers[0].runner()
	coros := &pool.Coroutines{}
	defer coros.Close()
	names := []string{"floor", "simrt", "direct", "hop"}
	runs := []runner{
		runFloor,
		func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{Coroutines: coros}) },
		func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{Coroutines: coros, direct: true}) },
		func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{Coroutines: coros, inboxHop: true}) },
	}
	var wall, cpu [4]time.Duration
	seed := uint64(0)
	for b.Loop() {
		for i, run := range runs {
			t0, c0 := time.Now(), cpuTime()
			if _, err := run(seed); err != nil {
				b.Fatalf("%s, seed %d: %v", names[i], seed, err)
			}
			wall[i], cpu[i] = wall[i]+time.Since(t0), cpu[i]+cpuTime()-c0
		}
		seed++
	}
	n := float64(seed)
	for i, name := range names {
		b.ReportMetric(float64(wall[i].Nanoseconds())/1e6/n, name+"-ms/run")
		if i == 0 {
			continue
		}
		short := name
		if i == 1 {
			short = "simrt"
		}
		b.ReportMetric(float64(wall[i])/float64(wall[0]), short+"/floor")
		if cpu[0] > 0 {
			b.ReportMetric(float64(cpu[i])/float64(cpu[0]), short+"/floor-cpu")
		}
	}
}

// BenchmarkDirect runs the simrt driver in its direct mode (messages skip
// the network stack, see simdirect.go) beside the full one: the difference
// is what simnet, its layers and the reader tasks cost a run.
func BenchmarkDirect(b *testing.B) {
	for _, direct := range []bool{false, true} {
		name := "simrt"
		if direct {
			name = "simrt-direct"
		}
		b.Run(name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			coros := &pool.Coroutines{}
			defer coros.Close()
			var t tally
			seed := uint64(0)
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				r, err := RunSim(seed, SimConfig{Coroutines: coros, direct: direct})
				if err != nil {
					b.Fatalf("seed %d: %v", seed, err)
				}
				t.add(r)
				seed++
			}
			t.report(b, time.Since(start), cpuTime()-cpu)
		})
	}
}

// BenchmarkSetup is the fixed cost of one simrt run: a runtime, five
// listeners and node tasks, twenty connections dialled, then the end of
// the run (every task unwound) before the scenario's clock starts.
func BenchmarkSetup(b *testing.B) {
	coros := &pool.Coroutines{}
	defer coros.Close()
	seed := uint64(0)
	for b.Loop() {
		if _, err := RunSim(seed, SimConfig{Coroutines: coros, setupOnly: true}); err != nil {
			b.Fatal(err)
		}
		seed++
	}
}

// BenchmarkAnatomy runs the drivers on the same seeds and reports what a
// run is made of: events the floor runs, task resumes and audited events
// simrt makes (with the event log on, so its time is not the benchmark's
// point), per run and per floor event, for simrt and (prefixed "direct-"
// and "hop-") its two diagnostic modes.
func BenchmarkAnatomy(b *testing.B) {
	modes := []struct {
		prefix string
		cfg    SimConfig
	}{{"", SimConfig{eventLog: -1}}, {"direct-", SimConfig{eventLog: -1, direct: true}}, {"hop-", SimConfig{eventLog: -1, inboxHop: true}}}
	labels := make([]map[string]int, len(modes))
	audited := make([]int, len(modes))
	for i := range labels {
		labels[i] = map[string]int{}
	}
	var floorEvents int
	seed := uint64(0)
	for b.Loop() {
		floorEvents += runFloor(seed, false).events
		for i, m := range modes {
			run := runSim(seed, m.cfg)
			if run.err != nil {
				b.Fatal(run.err)
			}
			for _, e := range run.log.Events() {
				labels[i][string(e.Label)]++
			}
			audited[i] += int(run.log.Total())
		}
		seed++
	}
	n := float64(seed)
	b.ReportMetric(float64(floorEvents)/n, "floor-events/run")
	for i, m := range modes {
		b.ReportMetric(float64(labels[i]["process_task"])/n, m.prefix+"resumes/run")
		b.ReportMetric(float64(labels[i]["process_task"])/float64(floorEvents), m.prefix+"resumes/floor-event")
		b.ReportMetric(float64(audited[i])/n, m.prefix+"audit-events/run")
		for _, l := range []string{"timer", "rand", "send_attempt", "recv_attempt", "dial_attempt", "dial_failure", "spawn"} {
			if labels[i][l] > 0 || i == 0 {
				b.ReportMetric(float64(labels[i][l])/n, m.prefix+l+"/run")
			}
		}
	}
}
