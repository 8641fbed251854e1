package runtimetest

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// Cases for code written against the simulator's helpers that must also
// run in production.
var paceCases = []testCase{
	{"Pace", "deterministic.Pace runs real work and returns its result on every runtime: a simulation delivers it no earlier than the latency in simulated time, production calls it directly (the reference's pacer is a no-op there)", pace},
}

func pace(t *testing.T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		start := ctx.Now()
		latency := 10 * time.Millisecond
		got := deterministic.Pace(ctx, latency, func() int {
			time.Sleep(time.Millisecond) // real work taking real time
			return 7
		})
		if got != 7 {
			t.Errorf("Pace returned %d, want 7", got)
		}
		if d := ctx.Now().Sub(start); r.Simulated && d < latency {
			t.Errorf("simulated Pace delivered after %v, want at least its latency %v", d, latency)
		}
		// From a spawned task, with a result that a real goroutine delivers.
		h := simrt.Spawn(ctx.Child("pacer"), func(ctx simrt.Context) string {
			return deterministic.Pace(ctx, 0, func() string {
				ch := make(chan string)
				go func() { ch <- "real" }()
				return <-ch
			})
		})
		if v, err := h.Await(ctx); v != "real" || err != nil {
			t.Errorf("Pace in a spawned task: %q, %v; want \"real\", nil", v, err)
		}
	})
}
