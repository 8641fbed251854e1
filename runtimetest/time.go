package runtimetest

import (
	"errors"
	"math"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

// Cases on the edges of the time range: durations and instants so large or
// so far in the past that a careless sum overflows.
var timeRangeCases = []testCase{
	{"ClockSleepMaxDuration", "Sleep(math.MaxInt64) and SleepUntil of the largest time.Time saturate instead of wrapping: the sleepers stay asleep while the run goes on, and unwind when it ends", clockSleepMaxDuration},
	{"ClockTimeoutMaxDuration", "Timeout(math.MaxInt64, f) never runs out: it returns f's result, and a shorter Timeout nested inside it still fires", clockTimeoutMaxDuration},
	{"ClockSleepUntilFarPast", "SleepUntil of a time long before the Unix epoch (even before 1678, where UnixNano is undefined) returns at once", clockSleepUntilFarPast},
}

func clockSleepMaxDuration(t T, r Runner) {
	var woke, unwound atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		sleeps := []struct {
			name  string
			sleep func(simrt.Context)
		}{
			{"Sleep(math.MaxInt64)", func(ctx simrt.Context) { ctx.Sleep(math.MaxInt64) }},
			{"SleepUntil(max time)", func(ctx simrt.Context) { ctx.SleepUntil(maxTime) }},
			{"SleepUntil(now + math.MaxInt64)", func(ctx simrt.Context) { ctx.SleepUntil(ctx.Now().Add(math.MaxInt64)) }},
		}
		for _, s := range sleeps {
			started := simrt.NewOneshot[struct{}]()
			simrt.Spawn(ctx.Child("sleeper"), func(ctx simrt.Context) struct{} {
				defer unwound.Add(1)
				// Move the clock off the epoch first: from a later instant a
				// wrapping sum lands in the past.
				ctx.Sleep(time.Millisecond)
				started.Send(struct{}{})
				s.sleep(ctx)
				woke.Add(1)
				t.Errorf("%s returned after %v", s.name, ctx.Now().Sub(time.Unix(0, 0)))
				return struct{}{}
			})
			started.Recv(ctx)
		}
		start := ctx.Now()
		ctx.Sleep(20 * time.Millisecond)
		if d := ctx.Now().Sub(start); r.Simulated && d != 20*time.Millisecond {
			t.Errorf("with the sleepers asleep, Sleep(20ms) moved the simulated clock by %v", d)
		}
		// Returning ends the run while the sleepers still sleep.
	})
	if woke.Load() != 0 || unwound.Load() != 3 {
		t.Errorf("%d of 3 far sleepers woke, %d unwound; want 0 and 3", woke.Load(), unwound.Load())
	}
}

func clockTimeoutMaxDuration(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ctx.Sleep(time.Millisecond) // off the epoch, where a wrapping deadline lands in the past
		errDone := errors.New("done")
		if err := simrt.Timeout(ctx, math.MaxInt64, func() error { return errDone }); err != errDone {
			t.Errorf("Timeout(math.MaxInt64) of a function that returns at once = %v, want its own error", err)
		}
		if err := simrt.Timeout(ctx, math.MaxInt64, func() error {
			ctx.Sleep(10 * time.Millisecond)
			return errDone
		}); err != errDone {
			t.Errorf("Timeout(math.MaxInt64) of a 10ms sleep = %v, want the function's own error", err)
		}
		outer := simrt.Timeout(ctx, math.MaxInt64, func() error {
			inner := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
				parkForever(ctx)
				return nil
			})
			if !errors.Is(inner, simrt.ErrTimeout) {
				t.Errorf("Timeout(10ms) inside Timeout(math.MaxInt64) = %v, want ErrTimeout", inner)
			}
			return nil
		})
		if outer != nil {
			t.Errorf("Timeout(math.MaxInt64) around a timed-out Timeout = %v, want nil", outer)
		}
	})
}

func clockSleepUntilFarPast(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		ctx.Sleep(time.Millisecond)
		for _, at := range []time.Time{
			time.Unix(-1<<40, 0), // year -32873: UnixNano wraps to a positive number
			{},                   // year 1
			time.Unix(0, 0).Add(-time.Nanosecond),
		} {
			before := ctx.Now()
			ctx.SleepUntil(at)
			if r.Simulated && !ctx.Now().Equal(before) {
				t.Errorf("SleepUntil(%v) moved the simulated clock from %v to %v", at, before, ctx.Now())
			}
		}
	})
}
