package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/runtimetest"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

// simulator is the simulator as the conformance suites' runtime under
// test: each case runs as the root task of a fresh simulation.
var simulator = suite.Runtime{
	Simulated: true,
	Stalled:   deterministic.ErrStalled,
	TimedOut:  deterministic.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	},
}

// TestConformance runs the cross-runtime suite on the simulator.
func TestConformance(t *testing.T) {
	runtimetest.Run(t, simulator)
}

// The error-returning form runs the same cases and reports no failure.
func TestConformanceErrorForm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite a second time")
	}
	if err := runtimetest.Test(simulator); err != nil {
		t.Error(err)
	}
}

// The runtime's own storage (metered → audited → the node's disk) passes
// the storage suite, from simulated tasks.
func TestStorageConformance(t *testing.T) {
	storagetest.Run(t, simulator, nil)
}
