package electbench

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// drivers are the two drivers under test, by name.
var drivers = []struct {
	name string
	run  func(seed uint64) (Result, error)
}{
	{"floor", RunFloor},
	{"simrt", func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{}) }},
	{"simrt-direct", func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{direct: true}) }},
	{"simrt-inboxhop", func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{inboxHop: true}) }},
}

func TestSafety(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			for seed := range uint64(10) {
				r, err := d.run(seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				// The run must have done the scenario's work: the first
				// election, a new one in the majority or a campaigning
				// minority during the split, and losses.
				if r.Wins < 2 || r.Elections < 2 || r.Delivered >= r.Sent || r.Sent < 1000 {
					t.Fatalf("seed %d: implausible run %+v", seed, r)
				}
			}
		})
	}
}

func TestSameSeedSameResult(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			seen := map[Result]uint64{}
			for seed := range uint64(4) {
				a, errA := d.run(seed)
				b, errB := d.run(seed)
				if a != b || errA != errB {
					t.Fatalf("seed %d: two runs differ:\n%+v, %v\n%+v, %v", seed, a, errA, b, errB)
				}
				if d.name != "floor" && (len(a.Audit) != 8 || a.Audit == "00000000") {
					t.Fatalf("seed %d: audit state %q", seed, a.Audit)
				}
				if prev, ok := seen[a]; ok {
					t.Fatalf("seeds %d and %d gave the same result %+v", prev, seed, a)
				}
				seen[a] = seed
			}
		})
	}
}

// work is the mean work per run of one driver over a range of seeds.
type work struct{ sent, delivered, elections float64 }

// runSeeds runs seeds [0, n) on run, on every core, and returns the
// results in seed order.
func runSeeds(t *testing.T, run func(uint64) (Result, error), n uint64) []Result {
	t.Helper()
	out := make([]Result, n)
	errs := make([]error, n)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for seed := next.Add(1) - 1; seed < n; seed = next.Add(1) - 1 {
				out[seed], errs[seed] = run(seed)
			}
		})
	}
	wg.Wait()
	for seed, err := range errs {
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	return out
}

// meanWork returns the post-stratified mean work per run of rs, and how
// many runs fell in each stratum. A run's work depends mostly on one
// event: whether the leader at the split sits in the minority (which then
// keeps it and has no need to campaign; about 4 elections per run) or not
// (the minority campaigns for the whole split: about 20). By symmetry the
// first happens with probability 2/5; weighting each stratum's mean by its
// exact probability removes the noise of how often one driver's seeds
// happened to land in each, which would otherwise swamp a 2% comparison.
func meanWork(t *testing.T, rs []Result) (work, [2]int) {
	t.Helper()
	var sum [2]work
	var count [2]int
	for _, r := range rs {
		k := 0
		if r.SplitLeader >= 0 && minority(r.SplitLeader) {
			k = 1
		}
		count[k]++
		sum[k].sent += float64(r.Sent)
		sum[k].delivered += float64(r.Delivered)
		sum[k].elections += float64(r.Elections)
	}
	if count[0] == 0 || count[1] == 0 {
		t.Fatalf("a stratum is empty: %v", count)
	}
	weight := [2]float64{3.0 / 5, 2.0 / 5}
	var w work
	for k := range 2 {
		c := float64(count[k])
		w.sent += weight[k] * sum[k].sent / c
		w.delivered += weight[k] * sum[k].delivered / c
		w.elections += weight[k] * sum[k].elections / c
	}
	return w, count
}

// TestDriversDoSameWork checks that the two drivers run the same scenario:
// messages sent and delivered and elections per run agree within 2%. The
// drivers draw from different generators, so the comparison is between
// means: over 1,600 seeds the standard error of the difference is about
// 0.1% for messages and 0.6% for elections (whose count after the heal is
// heavy-tailed); 400 seeds (-short) leave 1.2% for elections, so there the
// elections bound is 5%.
func TestDriversDoSameWork(t *testing.T) {
	seeds, electionsTol := uint64(1600), 0.02
	if testing.Short() {
		seeds, electionsTol = 400, 0.05
	}
	f, fc := meanWork(t, runSeeds(t, RunFloor, seeds))
	s, sc := meanWork(t, runSeeds(t, func(seed uint64) (Result, error) { return RunSim(seed, SimConfig{}) }, seeds))
	t.Logf("floor: %+v (seeds per stratum %v)", f, fc)
	t.Logf("simrt: %+v (seeds per stratum %v)", s, sc)
	for _, c := range []struct {
		name string
		f, s float64
		tol  float64
	}{
		{"messages sent", f.sent, s.sent, 0.02},
		{"messages delivered", f.delivered, s.delivered, 0.02},
		{"elections", f.elections, s.elections, electionsTol},
	} {
		if d := math.Abs(c.s-c.f) / c.f; d > c.tol {
			t.Errorf("%s per run: floor %.2f, simrt %.2f: %.1f%% apart, want within %.0f%%", c.name, c.f, c.s, 100*d, 100*c.tol)
		}
	}
}

// ExampleRunFloor shows one run of the floor driver.
func ExampleRunFloor() {
	r, err := RunFloor(1)
	fmt.Println(err == nil, r.Sent > r.Delivered, r.Wins >= 2)
	// Output: true true true
}

// TestSplitLosesMessagesInFlight checks the network model both drivers
// share: no message crosses the split if the split stood at any moment of
// its flight. For simrt that rests on HoldTimeout: with bytes held until
// the heal instead, the held messages arrive after it, and the check must
// see them.
func TestSplitLosesMessagesInFlight(t *testing.T) {
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			for seed := range uint64(10) {
				r, err := d.run(seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if r.Leaked != 0 {
					t.Fatalf("seed %d: %d messages crossed the split while it stood", seed, r.Leaked)
				}
			}
		})
	}
	t.Run("simrt holding bytes", func(t *testing.T) {
		leaked := 0
		for seed := range uint64(10) {
			r, err := RunSim(seed, SimConfig{holdForever: true})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			leaked += r.Leaked
		}
		if leaked == 0 {
			t.Fatal("with bytes held across the split, no message was seen crossing it: the check is blind")
		}
		t.Logf("%d messages held across the split and delivered after the heal, over 10 seeds", leaked)
	})
}

// TestSafetyCheckFailsTheRun plants a bug (every node grants every vote of
// its term) and checks that each driver's run then fails the safety check
// on some seed, with an error that says so.
func TestSafetyCheckFailsTheRun(t *testing.T) {
	buggy := []struct {
		name string
		run  func(seed uint64) error
	}{
		{"floor", func(seed uint64) error { return runFloor(seed, true).err }},
		{"simrt", func(seed uint64) error { return runSim(seed, SimConfig{anyVote: true}).err }},
	}
	for _, d := range buggy {
		t.Run(d.name, func(t *testing.T) {
			for seed := range uint64(100) {
				if err := d.run(seed); err != nil {
					if !strings.Contains(err.Error(), "safety violated") {
						t.Fatalf("seed %d: %v, want a safety violation", seed, err)
					}
					t.Logf("seed %d: %v", seed, err)
					return
				}
			}
			t.Fatal("with every vote granted, 100 seeds passed the safety check")
		})
	}
}

// ExampleRunSim shows one run of the simrt driver: the same seed always
// gives the same Result, audit state included.
func ExampleRunSim() {
	a, err := RunSim(7, SimConfig{})
	b, _ := RunSim(7, SimConfig{})
	fmt.Println(err == nil, a == b, a.Leaked, len(a.Audit))
	// Output: true true 0 8
}

// TestDeliveryWakesOneTask checks the simrt driver's structure: a
// delivered message resumes the reader task that receives it and no other
// (the reader steps the node), where the inboxHop diagnostic also resumes
// the node's task to hand it over. Counted in the audited resumes of the
// same seeds: the difference must be most of one per delivered message
// (not all: with the hop, a node's task that finds several messages in its
// inbox takes them in one resume).
func TestDeliveryWakesOneTask(t *testing.T) {
	resumes := func(cfg SimConfig, seed uint64) (int, int) {
		cfg.eventLog = -1
		run := runSim(seed, cfg)
		if run.err != nil {
			t.Fatalf("seed %d: %v", seed, run.err)
		}
		n := 0
		for _, e := range run.log.Events() {
			if e.Label == "process_task" {
				n++
			}
		}
		return n, run.res.Delivered
	}
	for seed := range uint64(3) {
		steps, delivered := resumes(SimConfig{}, seed)
		hop, _ := resumes(SimConfig{inboxHop: true}, seed)
		if saved := hop - steps; saved < delivered*3/4 {
			t.Errorf("seed %d: %d resumes, %d with the inbox hop, %d messages delivered: want at least 3/4 of a resume saved per message", seed, steps, hop, delivered)
		}
		t.Logf("seed %d: %d resumes, %d with the inbox hop, %d delivered", seed, steps, hop, delivered)
	}
}
