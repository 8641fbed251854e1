package deterministic

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// overSeeds runs root under seeds 0..n-1 with cfg and counts the runs for
// which root returns true.
func overSeeds(n int, cfg Config, root func(ctx *Context) bool) int {
	hits := 0
	for seed := range uint64(n) {
		cfg.Seed = seed
		New(cfg).Start(func(ctx *Context) {
			if root(ctx) {
				hits++
			}
		})
	}
	return hits
}

// childFirst reports whether a spawned task ran before its creator's next
// operation.
func childFirst(ctx *Context) bool {
	ran := false
	h := simrt.Spawn(ctx, func(simrt.Context) struct{} { ran = true; return struct{}{} })
	first := ran
	h.Await(ctx)
	return first
}

func TestSpawnedTaskRunsFirstOnSomeSeeds(t *testing.T) {
	hits := overSeeds(200, Config{}, childFirst)
	if hits == 0 || hits == 200 {
		t.Fatalf("the child ran first on %d of 200 seeds, want some but not all", hits)
	}
	if hits := overSeeds(200, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, childFirst); hits != 0 {
		t.Fatalf("with NoYield the child ran first on %d seeds", hits)
	}
	if hits := overSeeds(20, Config{Scheduling: Scheduling{YieldProbability: 1}}, childFirst); hits != 20 {
		t.Fatalf("with probability 1 the child ran first on %d of 20 seeds", hits)
	}
}

// interleavedLocks reports whether b ran between a's two uncontended
// critical sections.
func interleavedLocks(ctx *Context) bool {
	var m1, m2 simrt.Mutex
	var trace []string
	a := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		m1.Lock(ctx)
		m1.Unlock()
		trace = append(trace, "a1")
		m2.Lock(ctx)
		m2.Unlock()
		trace = append(trace, "a2")
		return struct{}{}
	})
	b := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { trace = append(trace, "b"); return struct{}{} })
	a.Await(ctx)
	b.Await(ctx)
	return len(trace) == 3 && trace[1] == "b"
}

func TestYieldBetweenUncontendedLocksOnSomeSeeds(t *testing.T) {
	if hits := overSeeds(300, Config{}, interleavedLocks); hits == 0 {
		t.Fatal("b never ran between a's two uncontended locks in 300 seeds")
	}
	if hits := overSeeds(300, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, interleavedLocks); hits != 0 {
		t.Fatalf("with NoYield b ran between a's locks on %d seeds", hits)
	}
}

// TestUnwindingTaskDoesNotYield: a task unwinding (aborted) completes the
// non-parking operations of its deferred calls even where every
// scheduling point yields: a yield there would unwind it again before the
// operation.
func TestUnwindingTaskDoesNotYield(t *testing.T) {
	New(Config{Scheduling: Scheduling{YieldProbability: 1}}).Start(func(ctx *Context) {
		var mu simrt.Mutex
		last := simrt.NewChan[int](1)
		started := simrt.NewSignal()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			mu.Lock(ctx)
			defer func() {
				mu.Unlock()
				if err := last.Send(ctx, 1); err != nil { // room: does not park
					panic(err)
				}
			}()
			started.Fire(1)
			simrt.NewSignal().Wait(ctx) // forever
			return struct{}{}
		})
		started.Wait(ctx)
		h.Abort()
		h.Await(ctx)
		ctx.Sleep(time.Millisecond) // the executor resumes the task to unwind it
		if v, ok := last.TryRecv(); !ok || v != 1 {
			t.Fatalf("the deferred Send did not complete: %v, %v", v, ok)
		}
		mu.Lock(ctx) // stalls the run if the deferred Unlock did not run
		mu.Unlock()
	})
}

func selectTaken(ctx *Context, biased bool) int {
	a, b, c := simrt.NewChan[int](1), simrt.NewChan[int](1), simrt.NewChan[int](1)
	a.TrySend(1)
	c.TrySend(3)
	cases := []simrt.Case{a.OnRecv(nil), b.OnRecv(nil), c.OnRecv(nil)}
	var i int
	if biased {
		i = simrt.SelectBiased(ctx, cases...)
	} else {
		i = simrt.Select(ctx, cases...)
	}
	// The case not taken keeps its value.
	if _, ok := a.TryRecv(); ok == (i == 0) {
		panic("case a: value lost or not taken")
	}
	if _, ok := c.TryRecv(); ok == (i == 2) {
		panic("case c: value lost or not taken")
	}
	return i
}

func TestSelectTakesEveryReadyCase(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		biased bool
		want   [3]bool
	}{
		{"random", Config{}, false, [3]bool{true, false, true}},
		{"SelectBiased", Config{}, true, [3]bool{true, false, false}},
		{"Config.Scheduling.BiasedSelect", Config{Scheduling: Scheduling{BiasedSelect: true}}, false, [3]bool{true, false, false}},
		{"NoYield", Config{Scheduling: Scheduling{YieldProbability: NoYield}}, false, [3]bool{true, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var taken [3]bool
			for seed := range uint64(64) {
				cfg := tc.cfg
				cfg.Seed = seed
				New(cfg).Start(func(ctx *Context) { taken[selectTaken(ctx, tc.biased)] = true })
			}
			if taken != tc.want {
				t.Fatalf("cases taken over 64 seeds: %v, want %v", taken, tc.want)
			}
		})
	}
}

func TestYieldProbabilityValidated(t *testing.T) {
	mustPanic(t, "Config.Scheduling.YieldProbability must be at most 1", func() { New(Config{Scheduling: Scheduling{YieldProbability: 1.5}}) })
	mustPanic(t, "Config.Scheduling.Scheduler is unknown", func() { New(Config{Scheduling: Scheduling{Scheduler: 9}}) })
	mustPanic(t, "Config.Scheduling.PCTDepth must not be negative", func() { New(Config{Scheduling: Scheduling{PCTDepth: -1}}) })
}
