package deterministic

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// busy spawns a task that reschedules itself n times: it is ready at every
// iteration, so the clock of a default run moves one Cycle each time.
func busy(ctx *Context, n int) *simrt.Handle[struct{}] {
	return simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		for range n {
			simrt.Reschedule(ctx)
		}
		return struct{}{}
	})
}

// TestAdvanceWhenBlockedSleepIsExact: with AdvanceWhenBlocked a sleep lasts
// exactly its duration while another task keeps running, and iterations
// with a task ready cost no time. Without the option (the control) the
// busy task's iterations cost a Cycle each, so the same program sees time
// pass while nobody sleeps.
func TestAdvanceWhenBlockedSleepIsExact(t *testing.T) {
	run := func(blocked bool) (slept, busyFor time.Duration) {
		New(Config{Seed: 3, AdvanceWhenBlocked: blocked, Scheduling: Scheduling{YieldProbability: NoYield}}).Start(func(ctx *Context) {
			t0 := ctx.Now()
			h := busy(ctx, 500)
			if _, err := h.Await(ctx); err != nil {
				t.Fatal(err)
			}
			busyFor = ctx.Now().Sub(t0)
			b := busy(ctx, 500)
			t1 := ctx.Now()
			ctx.Sleep(100 * time.Millisecond)
			slept = ctx.Now().Sub(t1)
			if _, err := b.Await(ctx); err != nil {
				t.Fatal(err)
			}
		})
		return slept, busyFor
	}
	slept, busyFor := run(true)
	if slept != 100*time.Millisecond || busyFor != 0 {
		t.Errorf("AdvanceWhenBlocked: slept %v (want exactly 100ms), 500 busy iterations took %v (want 0)", slept, busyFor)
	}
	slept, busyFor = run(false)
	if busyFor < 500*time.Millisecond || slept < 100*time.Millisecond {
		t.Errorf("default clock: 500 busy iterations took %v (want at least 500 cycles), slept %v", busyFor, slept)
	}
}

// TestAdvanceWhenBlockedTiesFromStream: tasks whose sleeps end at one
// instant wake in the same iteration, in an order drawn from the stream:
// one seed gives one order every run, and seeds give different orders.
func TestAdvanceWhenBlockedTiesFromStream(t *testing.T) {
	order := func(seed uint64) string {
		var got []int
		New(Config{Seed: seed, AdvanceWhenBlocked: true}).Start(func(ctx *Context) {
			var hs []*simrt.Handle[struct{}]
			for i := range 5 {
				hs = append(hs, simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
					ctx.Sleep(10 * time.Millisecond) // started in one iteration: due together
					got = append(got, i)
					if d := ctx.Now().Sub(time.Unix(0, 0)); d != 10*time.Millisecond {
						t.Errorf("task %d woke at %v, want 10ms", i, d)
					}
					return struct{}{}
				}))
			}
			for _, h := range hs {
				h.Await(ctx)
			}
		})
		return fmt.Sprint(got)
	}
	seen := map[string]bool{}
	for seed := range uint64(20) {
		a, b := order(seed), order(seed)
		if a != b {
			t.Fatalf("seed %d: orders %s then %s", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("20 seeds gave one wake order only: %v", seen)
	}
}

// TestAdvanceWhenBlockedSpinReachesTimers: tasks that keep one another
// ready forever (here a task that reschedules until a timer fires) do not
// freeze time: after SpinIterations iterations the clock moves one Cycle,
// never past the next timer, so the timer fires at its exact time.
func TestAdvanceWhenBlockedSpinReachesTimers(t *testing.T) {
	var firedAt time.Duration
	var spins int
	New(Config{Seed: 1, AdvanceWhenBlocked: true, SpinIterations: 100, Cycle: 2 * time.Millisecond}).Start(func(ctx *Context) {
		fired := false
		ctx.AfterFunc(5*time.Millisecond, func() { fired = true; firedAt = ctx.Now().Sub(time.Unix(0, 0)) })
		for !fired {
			simrt.Reschedule(ctx)
			spins++
		}
	})
	if firedAt != 5*time.Millisecond {
		t.Errorf("timer fired at %v, want exactly 5ms", firedAt)
	}
	// Cycles of 2 ms at 100 iterations each: 2 ms, 4 ms, then the timer's 5 ms.
	if spins < 250 || spins > 320 {
		t.Errorf("%d spins before the timer, want about 300 (3 moves of 100 iterations)", spins)
	}
}

// TestAdvanceWhenBlockedSpinEndsAtTimeout: a spin with no timer to wait for
// ends with the runtime timeout verdict instead of running for ever.
func TestAdvanceWhenBlockedSpinEndsAtTimeout(t *testing.T) {
	defer func() {
		r := recover()
		err, _ := r.(error)
		if !errors.Is(err, ErrRunTimeout) {
			t.Fatalf("recovered %v, want the runtime timeout verdict", r)
		}
	}()
	New(Config{AdvanceWhenBlocked: true, SpinIterations: 10, Timeout: time.Second}).Start(func(ctx *Context) {
		for {
			simrt.Reschedule(ctx)
		}
	})
}

// TestAdvanceWhenBlockedConfig: the option's invalid combinations are
// refused with the field's name.
func TestAdvanceWhenBlockedConfig(t *testing.T) {
	mustPanic(t, "Config.SpinIterations must not be negative", func() { New(Config{SpinIterations: -1}) })
	mustPanic(t, "AdvanceWhenBlocked and Config.External", func() { New(Config{AdvanceWhenBlocked: true, External: true}) })
	if got := New(Config{}).cfg.SpinIterations; got != defaultSpinIterations {
		t.Errorf("default SpinIterations %d, want %d", got, defaultSpinIterations)
	}
}
