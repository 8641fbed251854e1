package sweep_test

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/sweep"
)

// small is a short simulation: a few tasks that sleep and meet.
func small(ctx *deterministic.Context) {
	done := simrt.NewChan[int](4)
	for i := range 4 {
		simrt.Spawn(ctx.Child("t"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(10)) * time.Millisecond)
			done.Send(ctx, i)
			return i
		})
	}
	for range 4 {
		done.Recv(ctx)
	}
}

// BenchmarkRun sweeps 1000 short simulations through the engine;
// BenchmarkHandLoop runs the same ones on a hand-written worker loop, the
// floor the engine's bookkeeping adds to.
func BenchmarkRun(b *testing.B) {
	set := sweep.Set{{Lo: 0, Hi: 999}}
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			for range b.N {
				_, err := sweep.Run(sweep.Config[struct{}]{Seeds: set, Workers: workers, KeepGoing: true},
					func(w *sweep.Worker, seed uint64) (struct{}, error) {
						deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Watchdog: -1, Coroutines: w.Coroutines}}).Start(small)
						return struct{}{}, nil
					})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "seeds/s")
		})
	}
}

func BenchmarkHandLoop(b *testing.B) {
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			for range b.N {
				seeds := make(chan uint64)
				done := make(chan struct{})
				for range workers {
					go func() {
						var coros pool.Coroutines
						defer coros.Close()
						for s := range seeds {
							deterministic.New(deterministic.Config{Seed: s, Hooks: deterministic.Hooks{Watchdog: -1, Coroutines: &coros}}).Start(small)
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
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "seeds/s")
		})
	}
}
