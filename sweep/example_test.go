package sweep_test

import (
	"fmt"
	"runtime"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/sweep"
)

// A sweep without a *testing.T: each seed runs one simulation on its
// worker's coroutine pool, and the failures come back in seed order,
// whatever the number of workers.
func ExampleRun() {
	set, err := sweep.Parse("0..199")
	if err != nil {
		panic(err)
	}
	rep, err := sweep.Run(sweep.Config[time.Duration]{Seeds: set, Workers: runtime.GOMAXPROCS(0), KeepGoing: true},
		func(w *sweep.Worker, seed uint64) (time.Duration, error) {
			var took time.Duration
			deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Coroutines: w.Coroutines}}).Start(func(ctx *deterministic.Context) {
				start := ctx.Now()
				done := simrt.NewChan[int](2)
				for i := range 2 {
					simrt.Spawn(ctx.Child("racer"), func(ctx simrt.Context) int {
						ctx.Sleep(time.Duration(ctx.Rand().IntN(100)) * time.Millisecond)
						done.Send(ctx, i)
						return i
					})
				}
				done.Recv(ctx)
				took = ctx.Now().Sub(start)
			})
			if took < 3*time.Millisecond {
				return took, fmt.Errorf("the race ended after %v", took)
			}
			return took, nil
		})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d of %d seeds ran; failing: %v\n", rep.Ran, rep.Selected, rep.FailingSeeds())
	// Output:
	// 200 of 200 seeds ran; failing: 40,55,133,158
}
