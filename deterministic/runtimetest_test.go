package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/runtimetest"
)

// TestConformance runs the cross-runtime suite on the simulator.
func TestConformance(t *testing.T) {
	runtimetest.Run(t, runtimetest.Runner{
		Simulated: true,
		Stalled:   deterministic.ErrStalled,
		TimedOut:  deterministic.ErrRunTimeout,
		Start: func(t *testing.T, o runtimetest.Options, root func(simrt.Context)) {
			cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
			deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
		},
	})
}
