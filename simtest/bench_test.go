package simtest_test

import (
	"flag"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/simtest"
)

// workload50 is the benchmark's system: 50 tasks that each sleep a random
// time and report to the root, three rounds over.
func workload50(t *testing.T, ctx *deterministic.Context) {
	for range 3 {
		workload(ctx, 50)
	}
}

// BenchmarkEventLog measures one simulation of workload50 with the event
// log off, with the 20-event ring simtest keeps for failure reports, and
// with the whole stream (the determinism check, traces).
func BenchmarkEventLog(b *testing.B) {
	for _, c := range []struct {
		name string
		log  int
	}{{"off", 0}, {"ring20", 20}, {"all", -1}} {
		b.Run("log="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				deterministic.New(deterministic.Config{Seed: uint64(i), Hooks: deterministic.Hooks{EventLog: c.log, Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
					workload50(nil, ctx)
				})
			}
		})
	}
}

// BenchmarkExplore measures seeds per second of Explore, subtests and
// reports included, over 1,000 seeds of workload50, with one simulation at
// a time and with one per core.
func BenchmarkExplore(b *testing.B) {
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("parallel="+strconv.Itoa(workers), func(b *testing.B) {
			b.Setenv("SIMRT_SEEDS", "0..999")
			b.Setenv("SIMRT_PARALLEL", strconv.Itoa(workers))
			start := time.Now()
			for range b.N {
				ok := testing.RunTests(func(string, string) (bool, error) { return true, nil },
					[]testing.InternalTest{{Name: "BenchmarkSweep", F: func(t *testing.T) {
						simtest.Explore(t, deterministic.Config{Hooks: deterministic.Hooks{Watchdog: -1}}, workload50)
					}}})
				if !ok {
					b.Fatal("sweep failed")
				}
			}
			// testing.RunTests runs the sweep -test.count times.
			runs, _ := strconv.Atoi(flag.Lookup("test.count").Value.String())
			b.ReportMetric(float64(1000*b.N*max(runs, 1))/time.Since(start).Seconds(), "seeds/s")
		})
	}
}

// BenchmarkSimulation is the floor for BenchmarkExplore: the same
// simulations, one per goroutine, without go test's subtests, at the
// collector target Explore uses.
func BenchmarkSimulation(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("parallel="+strconv.Itoa(workers), func(b *testing.B) {
			start := time.Now()
			for range b.N {
				seeds := make(chan uint64)
				done := make(chan struct{})
				for range workers {
					go func() {
						var coros pool.Coroutines
						defer coros.Close()
						for s := range seeds {
							deterministic.New(deterministic.Config{Seed: s, Hooks: deterministic.Hooks{Watchdog: -1, Coroutines: &coros}}).Start(func(ctx *deterministic.Context) {
								workload50(nil, ctx)
							})
						}
						done <- struct{}{}
					}()
				}
				for s := range uint64(1000) {
					seeds <- s
				}
				close(seeds)
				for range workers {
					<-done
				}
			}
			b.ReportMetric(float64(1000*b.N)/time.Since(start).Seconds(), "seeds/s")
		})
	}
}
