package main

import (
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic/pool"
)

// BenchmarkSeed runs whole seeds of the healthy 5-node cluster with faults
// and crashes, 10 simulated seconds each, and reports the simulated/real
// time ratio and seeds per second on one core.
func BenchmarkSeed(b *testing.B) {
	var sim time.Duration
	start := time.Now()
	seed := uint64(0)
	coros := &pool.Coroutines{}
	defer coros.Close()
	for b.Loop() {
		o := runSeed(simConfig{Seed: seed, Coroutines: coros})
		if o.Failure != "" {
			b.Fatalf("seed %d: %s", seed, o.Failure)
		}
		sim += o.SimTime
		seed++
	}
	wall := time.Since(start)
	b.ReportMetric(sim.Seconds()/wall.Seconds(), "sim/real")
	b.ReportMetric(float64(seed)/wall.Seconds(), "seeds/s")
}
