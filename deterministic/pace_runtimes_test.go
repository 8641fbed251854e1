package deterministic_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/suite"
)

// paceRunner runs a root task on one runtime, for the Pace case (which
// left runtimetest so that the suite imports no runtime).
type paceRunner struct{ suite.Runtime }

func (r paceRunner) run(t *testing.T, opts suite.Options, root func(ctx simrt.Context)) {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = suite.DefaultTimeout
	}
	r.Run(t, opts, root)
}

// TestPaceOnEveryRuntime: Pace runs real work and returns its result on
// both runtimes.
func TestPaceOnEveryRuntime(t *testing.T) {
	production := suite.Runtime{
		TimedOut: realtime.ErrRunTimeout,
		Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
			cfg := realtime.Config{CatchPanics: o.CatchPanics, Timeout: o.Timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			realtime.New(cfg).Start(root)
		},
	}
	t.Run("deterministic", func(t *testing.T) { pace(t, paceRunner{simulator}) })
	t.Run("realtime", func(t *testing.T) { pace(t, paceRunner{production}) })
}

// Options is the options of one run of pace.
type Options = suite.Options

// deterministic.Pace runs real work and returns its result on every
// runtime: a simulation delivers it no earlier than the latency in
// simulated time, production calls it directly (the reference's pacer is
// a no-op there).
func pace(t *testing.T, r paceRunner) {
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
