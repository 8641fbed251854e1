package runtimetest

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

var clockCases = []testCase{
	{"ClockSleep", "Sleep(d) lets at least d pass (exactly d in a simulation, whose clock starts at the Unix epoch)", clockSleep},
	{"ClockSleepUntil", "SleepUntil(t) returns at or after t (exactly at t in a simulation); a past t returns at once", clockSleepUntil},
	{"ClockTimeoutTie", "when f finishes at the very moment its Timeout runs out, f wins, as in the reference's biased select (only a simulation can produce the tie)", clockTimeoutTie},
	{"ClockSleepUntilFarFuture", "SleepUntil of the largest time.Time does not overflow: it simply waits, and a Timeout cuts it short", clockSleepUntilFarFuture},
	{"ClockTimeout", "Timeout returns f's result when f finishes in time and ErrTimeout otherwise, after unwinding f (its deferred calls run)", clockTimeout},
	{"ClockTimeoutExpired", "Timeout(d) with d <= 0 has run out before f starts: f is unwound at its first park (ErrTimeout, its deferred calls run, in a simulation no time passes); an f that never parks returns its own result", clockTimeoutExpired},
	{"ClockTimeoutBeforeWake", "a Timeout whose time runs out strictly before what f waits for happens (its Sleep's end, an After case) returns ErrTimeout, also when both fall within one simulated Cycle", clockTimeoutBeforeWake},
}

// maxTime is the largest time.Time.
var maxTime = time.Unix(1<<63-62135596801, 999_999_999)

func clockSleep(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		start := ctx.Now()
		if r.Simulated && !start.Equal(time.Unix(0, 0)) {
			t.Errorf("simulated clock starts at %v, want the Unix epoch", start)
		}
		ctx.Sleep(10 * time.Millisecond)
		d := ctx.Now().Sub(start)
		if d < 10*time.Millisecond || r.Simulated && d != 10*time.Millisecond {
			t.Errorf("Sleep(10ms) took %v", d)
		}
		ctx.Sleep(0)
		ctx.Sleep(-time.Second) // a negative duration returns at once
	})
}

func clockSleepUntil(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		target := ctx.Now().Add(100 * time.Millisecond)
		ctx.SleepUntil(target)
		now := ctx.Now()
		if now.Before(target) || r.Simulated && !now.Equal(target) {
			t.Errorf("SleepUntil(%v) returned at %v", target, now)
		}
		past := ctx.Now()
		ctx.SleepUntil(past.Add(-time.Hour))
		if r.Simulated && !ctx.Now().Equal(past) {
			t.Errorf("SleepUntil in the past moved the simulated clock from %v to %v", past, ctx.Now())
		}
	})
}

func clockSleepUntilFarFuture(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		err := simrt.Timeout(ctx, time.Millisecond, func() error {
			ctx.SleepUntil(maxTime)
			return nil
		})
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("Timeout(1ms, SleepUntil(max time)) = %v, want ErrTimeout", err)
		}
	})
}

func clockTimeout(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		errDone := errors.New("done")
		if err := simrt.Timeout(ctx, 100*time.Millisecond, func() error { return errDone }); err != errDone {
			t.Errorf("Timeout of a function that returns at once = %v, want its own error", err)
		}
		var unwound, after atomic.Bool
		err := simrt.Timeout(ctx, 50*time.Millisecond, func() error {
			defer unwound.Store(true)
			parkForever(ctx)
			after.Store(true)
			return nil
		})
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("Timeout of a function that never finishes = %v, want ErrTimeout", err)
		}
		if !unwound.Load() || after.Load() {
			t.Errorf("timed-out function: deferred call ran %v, code after its park ran %v; want true, false", unwound.Load(), after.Load())
		}
		if err := simrt.Timeout(ctx, 100*time.Millisecond, func() error {
			ctx.Sleep(50 * time.Millisecond)
			return nil
		}); err != nil {
			t.Errorf("Timeout(100ms) of a 50ms sleep = %v, want nil", err)
		}
		// Timeouts nest: the one whose time ran out is the one that reports.
		outer := simrt.Timeout(ctx, time.Second, func() error {
			inner := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
				parkForever(ctx)
				return nil
			})
			if !errors.Is(inner, simrt.ErrTimeout) {
				t.Errorf("inner Timeout = %v, want ErrTimeout", inner)
			}
			return nil
		})
		if outer != nil {
			t.Errorf("outer Timeout = %v, want nil", outer)
		}
		// The task is still usable after its timeouts: it can park again.
		ctx.Sleep(time.Millisecond)
	})
}

func clockTimeoutTie(t T, r Runner) {
	if !r.Simulated {
		t.Skip("a real clock cannot make f and the timeout finish at the same instant")
	}
	r.run(t, Options{}, func(ctx simrt.Context) {
		err := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
			ctx.Sleep(10 * time.Millisecond)
			return nil
		})
		if err != nil {
			t.Errorf("Timeout(10ms) of a 10ms sleep = %v, want nil: f wins a tie", err)
		}
	})
}

func clockTimeoutExpired(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		for _, d := range []time.Duration{0, -time.Second} {
			start := ctx.Now()
			var unwound, after atomic.Bool
			err := simrt.Timeout(ctx, d, func() error {
				defer unwound.Store(true)
				ctx.Sleep(time.Millisecond)
				after.Store(true)
				return nil
			})
			if !errors.Is(err, simrt.ErrTimeout) || !unwound.Load() || after.Load() {
				t.Errorf("Timeout(%v) of a 1ms Sleep = %v (deferred call ran %v, code after the Sleep ran %v); want ErrTimeout, true, false",
					d, err, unwound.Load(), after.Load())
			}
			if r.Simulated && !ctx.Now().Equal(start) {
				t.Errorf("Timeout(%v) of a 1ms Sleep returned after %v of simulated time, want at once", d, ctx.Now().Sub(start))
			}
			errDone := errors.New("done")
			if err := simrt.Timeout(ctx, d, func() error { return errDone }); err != errDone {
				t.Errorf("Timeout(%v) of a function that never parks = %v, want its own error", d, err)
			}
		}
		ctx.Sleep(time.Millisecond) // the task parks normally afterwards
	})
}

func clockTimeoutBeforeWake(t T, r Runner) {
	// In a simulation with the default 1ms Cycle both instants fall in one
	// step of the clock; in production the wait is long enough that no
	// load on the machine can make it end first.
	wait := time.Millisecond
	if !r.Simulated {
		wait = time.Second
	}
	r.run(t, Options{}, func(ctx simrt.Context) {
		for _, d := range []time.Duration{1, 500 * time.Microsecond, time.Millisecond - 1} {
			err := simrt.Timeout(ctx, d, func() error {
				ctx.Sleep(wait)
				return nil
			})
			if !errors.Is(err, simrt.ErrTimeout) {
				t.Errorf("Timeout(%v) of a %v Sleep = %v, want ErrTimeout: the time ran out first", d, wait, err)
			}
			err = simrt.Timeout(ctx, d, func() error {
				simrt.Select(ctx, simrt.After(ctx, wait, nil))
				return nil
			})
			if !errors.Is(err, simrt.ErrTimeout) {
				t.Errorf("Timeout(%v) of a Select on After(%v) = %v, want ErrTimeout: the time ran out first", d, wait, err)
			}
		}
	})
}
