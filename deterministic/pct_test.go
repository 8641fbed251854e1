package deterministic

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
)

// depth2Bug is a planted bug of depth 2: b must run after a's first
// critical section (a runs first) and before its second (a is preempted
// between two uncontended locks). It reports whether b saw the
// intermediate state.
func depth2Bug(ctx *Context) bool {
	var mu simrt.Mutex
	flag, saw := 0, false
	a := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		mu.Lock(ctx)
		flag = 1
		mu.Unlock()
		mu.Lock(ctx)
		flag = 0
		mu.Unlock()
		return struct{}{}
	})
	b := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		mu.Lock(ctx)
		saw = flag == 1
		mu.Unlock()
		return struct{}{}
	})
	a.Await(ctx)
	b.Await(ctx)
	return saw
}

func TestPCTFindsDepth2BugUniformMisses(t *testing.T) {
	const budget = 200
	pct := overSeeds(budget, Config{Scheduling: Scheduling{Scheduler: PCT, PCTDepth: 2, PCTSteps: 12}}, depth2Bug)
	if pct == 0 {
		t.Fatalf("PCT d=2 missed the depth-2 bug in %d seeds", budget)
	}
	if uniform := overSeeds(budget, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, depth2Bug); uniform != 0 {
		t.Fatalf("uniform scheduling without scheduling points found the bug %d times: the planted bug is not depth 2", uniform)
	}
	// PCT d=1 only permutes priorities and never preempts: it cannot.
	if d1 := overSeeds(budget, Config{Scheduling: Scheduling{Scheduler: PCT, PCTDepth: 1, PCTSteps: 12}}, depth2Bug); d1 != 0 {
		t.Fatalf("PCT d=1 found the depth-2 bug %d times", d1)
	}
	t.Logf("PCT d=2 found the bug in %d of %d seeds", pct, budget)
}

func TestPCTDeterministicPerSeed(t *testing.T) {
	states := map[string]bool{}
	for seed := range uint64(8) {
		cfg := Config{Seed: seed, Scheduling: Scheduling{Scheduler: PCT, PCTDepth: 3, PCTSteps: 50}}
		first := streamRun(t, cfg, streamWorkload)
		if again := streamRun(t, cfg, streamWorkload); again != first {
			t.Fatalf("seed %d: PCT runs differ: %s, %s", seed, first, again)
		}
		states[first] = true
	}
	if len(states) < 2 {
		t.Fatalf("8 PCT seeds gave %d audit state(s)", len(states))
	}
	rec := &decision.Stream{}
	want := streamRun(t, Config{Seed: 3, Scheduling: Scheduling{Scheduler: PCT}, Hooks: Hooks{Record: rec}}, streamWorkload)
	if got := streamRun(t, Config{Seed: 4, Replay: rec, Scheduling: Scheduling{Scheduler: PCT}}, streamWorkload); got != want {
		t.Fatalf("PCT replay: %s, recorded %s", got, want)
	}
}

// pingPong is two tasks handing a value back and forth forever over
// unbuffered channels, under a root that returns after 1 ms.
func pingPong(ctx *Context) {
	ping, pong := simrt.NewChan[int](0), simrt.NewChan[int](0)
	simrt.Spawn(ctx.Child("pinger"), func(ctx simrt.Context) struct{} {
		for i := 0; ; i++ {
			ping.Send(ctx, i)
			pong.Recv(ctx)
		}
	})
	simrt.Spawn(ctx.Child("ponger"), func(ctx simrt.Context) struct{} {
		for {
			v, _ := ping.Recv(ctx)
			pong.Send(ctx, v)
		}
	})
	ctx.Sleep(time.Millisecond)
}

// TestPCTPingPongEnds: under PCT a task takes over at most once per
// iteration (a second time, the running task waits for the next iteration
// instead), so two tasks handing values to each other let the iteration
// end, time advance and the root's sleep fire. Before, the ponger took over the
// pinger through the front list at every hand-off, forever, at one
// simulated instant (seeds 1, 2, 3, 14, 37, 38 and 42 of 50). The
// AfterResume hook stops a run that resumes 100,000 times at one instant.
func TestPCTPingPongEnds(t *testing.T) {
	var spun []uint64
	for seed := range uint64(50) {
		if pingPongSpins(seed) {
			spun = append(spun, seed)
		}
	}
	if len(spun) > 0 {
		t.Fatalf("PCT ping-pong spun at one simulated instant on %d of 50 seeds: %v", len(spun), spun)
	}
}

// pingPongSpins runs pingPong under PCT with seed and reports whether it
// resumed 100,000 times at one simulated instant.
func pingPongSpins(seed uint64) (spun bool) {
	type spin struct{}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(spin); !ok {
				panic(r)
			}
			spun = true
		}
	}()
	var at time.Time
	same := 0
	cfg := Config{Seed: seed, Scheduling: Scheduling{Scheduler: PCT}, Timeout: time.Second, Hooks: Hooks{Watchdog: -1,
		AfterResume: func(_ string, now time.Time) {
			if !now.Equal(at) {
				at, same = now, 0
			}
			if same++; same > 100_000 {
				panic(spin{})
			}
		}}}
	New(cfg).Start(pingPong)
	return false
}
