package runtimetest

import (
	"time"

	"github.com/simrt/simrt"
)

var tickerCases = []testCase{
	{"TickerDriftFree", "a Ticker ticks at start+k·d (exactly, in a simulation), however late each tick is taken; a slow receiver gets the oldest tick held and misses the rest, as with time.Ticker", tickerDriftFree},
	{"TickerStopReset", "after Stop no tick arrives, not even one already held; Reset restarts the period from now", tickerStopReset},
	{"TickerSelect", "OnTick is a Select case", tickerSelect},
	{"TickerEndsWithItsTask", "a Ticker stops when the task that made it ends; Reset then panics", tickerEndsWithItsTask},
}

const tick = 5 * time.Millisecond

func tickerDriftFree(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		start := ctx.Now()
		tk := simrt.NewTicker(ctx, tick)
		defer tk.Stop()
		var got []time.Duration
		for range 5 {
			got = append(got, tk.Recv(ctx).Sub(start))
			ctx.Sleep(tick / 5) // work between ticks must not shift the next
		}
		ctx.Sleep(3*tick + 2*time.Millisecond) // slow: ticks 6 to 8 are due meanwhile
		got = append(got, tk.Recv(ctx).Sub(start), tk.Recv(ctx).Sub(start))
		if r.Simulated {
			want := []time.Duration{tick, 2 * tick, 3 * tick, 4 * tick, 5 * tick, 6 * tick, 9 * tick}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("tick times after start = %v, want %v", got, want)
					break
				}
			}
			tickerNoDrift(t, ctx)
			return
		}
		for i, d := range got[:5] {
			if d < time.Duration(i+1)*tick {
				t.Errorf("tick %d came %v after start, before %v", i+1, d, time.Duration(i+1)*tick)
			}
		}
		if got[6] <= got[5] || got[5] < 6*tick || got[6] < 7*tick {
			t.Errorf("ticks after a slow receive came at %v and %v after start", got[5], got[6])
		}
	})
}

func tickerStopReset(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		tk := simrt.NewTicker(ctx, tick)
		ctx.Sleep(tick + tick/2) // one tick due and held
		tk.Stop()
		tk.Stop()
		if at, ok := tk.TryRecv(); ok {
			t.Errorf("a tick (of %v) was held past Stop", at)
		}
		ctx.Sleep(3 * tick)
		if at, ok := tk.TryRecv(); ok {
			t.Errorf("a stopped ticker ticked at %v", at)
		}
		reset := ctx.Now()
		tk.Reset(2 * tick)
		at := tk.Recv(ctx)
		if d := at.Sub(reset); d < 2*tick || r.Simulated && d != 2*tick {
			t.Errorf("first tick after Reset(%v) came %v later", 2*tick, d)
		}
		ctx.Sleep(2*tick + tick/2) // a tick of the new period held
		tk.Reset(tick)
		if at, ok := tk.TryRecv(); ok {
			t.Errorf("a tick (of %v) from before Reset was received", at)
		}
		tk.Stop()
		if catchPanic(func() { tk.Reset(0) }) == nil {
			t.Errorf("Reset(0) did not panic")
		}
		if catchPanic(func() { simrt.NewTicker(ctx, -tick) }) == nil {
			t.Errorf("NewTicker with a negative interval did not panic")
		}
	})
}

func tickerSelect(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		start := ctx.Now()
		tk := simrt.NewTicker(ctx, tick)
		defer tk.Stop()
		never := simrt.NewSignal()
		var at time.Time
		if i := simrt.Select(ctx, never.OnFire(nil), tk.OnTick(func(v time.Time) { at = v })); i != 1 {
			t.Errorf("Select on OnTick = case %d, want 1", i)
		}
		if d := at.Sub(start); d < tick || r.Simulated && d != tick {
			t.Errorf("OnTick passed a tick %v after start, want %v", d, tick)
		}
	})
}

func tickerEndsWithItsTask(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx, func(ctx simrt.Context) *simrt.Ticker { return simrt.NewTicker(ctx, tick) })
		tk, err := h.Await(ctx)
		if err != nil {
			t.Errorf("Await = %v", err)
			return
		}
		ctx.Sleep(3 * tick)
		if at, ok := tk.TryRecv(); ok {
			t.Errorf("the ticker of an ended task ticked at %v", at)
		}
		if catchPanic(func() { tk.Reset(tick) }) == nil {
			t.Errorf("Reset of the ticker of an ended task did not panic")
		}
	})
}

// tickerNoDrift checks, in a simulation, that ticks late by a fraction of a
// period do not push the later ones back: with a task always ready the
// clock moves by whole executor cycles, so a period that is not a multiple
// of the cycle makes every tick late, and a ticker that set each timer one
// period after the last tick was taken would fall further behind each time.
func tickerNoDrift(t T, ctx simrt.Context) {
	const d = 2*time.Millisecond + 500*time.Microsecond
	stop := simrt.NewSignal()
	simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		for _, done := stop.Fired(); !done; _, done = stop.Fired() {
			simrt.Reschedule(ctx)
		}
		return struct{}{}
	})
	defer stop.Fire(0)
	start := ctx.Now()
	tk := simrt.NewTicker(ctx, d)
	defer tk.Stop()
	for k := 1; k <= 40; k++ {
		late := tk.Recv(ctx).Sub(start) - time.Duration(k)*d
		if late < 0 || late >= d {
			t.Errorf("tick %d came %v after start+%d·%v: the ticker drifts", k, late, k, d)
			return
		}
	}
}
