package memory_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

// simulator runs each conformance case as the root task of a fresh
// simulation.
var simulator = suite.Runtime{
	Simulated: true,
	Stalled:   deterministic.ErrStalled,
	TimedOut:  deterministic.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	},
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, simulator, func(storagetest.T, simrt.Context) simrt.Storage { return memory.New() })
}
