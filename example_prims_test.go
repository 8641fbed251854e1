package simrt_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

func ExampleNewChan_unbuffered() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		ch := simrt.NewChan[string](0) // make(chan string): Send waits for a receiver
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Second)
			v, _ := ch.Recv(ctx)
			fmt.Println("received", v, "at", ctx.Now().Unix())
			return struct{}{}
		})
		ch.Send(ctx, "hello")
		fmt.Println("sent at", ctx.Now().Unix())
	})
	// Unordered output:
	// received hello at 1
	// sent at 1
}

func ExampleWaitGroup() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		var wg simrt.WaitGroup
		for i := 1; i <= 3; i++ {
			wg.Go(ctx, func(ctx simrt.Context) { ctx.Sleep(time.Duration(i) * time.Second) })
		}
		wg.Wait(ctx)
		// Each step of the simulated executor takes 1ms (Config.Cycle).
		fmt.Println("all done after", ctx.Now().Sub(time.Unix(0, 0)).Round(time.Second))
	})
	// Output: all done after 3s
}

func ExampleRWMutex() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		var mu simrt.RWMutex
		config := map[string]string{"mode": "a"}
		var wg simrt.WaitGroup
		for range 3 {
			wg.Go(ctx, func(ctx simrt.Context) {
				mu.RLock(ctx) // readers share the lock
				defer mu.RUnlock()
				_ = config["mode"]
				ctx.Sleep(time.Second)
			})
		}
		wg.Go(ctx, func(ctx simrt.Context) {
			ctx.Sleep(time.Millisecond)
			mu.Lock(ctx) // waits for the readers
			defer mu.Unlock()
			config["mode"] = "b"
			fmt.Println("written at", ctx.Now().Sub(time.Unix(0, 0)).Round(time.Second))
		})
		wg.Wait(ctx)
	})
	// Output: written at 1s
}

func ExampleOnce() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		var once simrt.Once
		var wg simrt.WaitGroup
		for range 3 {
			wg.Go(ctx, func(ctx simrt.Context) {
				once.Do(ctx, func() {
					ctx.Sleep(time.Second) // the others park until this returns
					fmt.Println("initialised")
				})
			})
		}
		wg.Wait(ctx)
	})
	// Output: initialised
}

func ExampleNewTicker() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		start := ctx.Now()
		tk := simrt.NewTicker(ctx, 100*time.Millisecond)
		defer tk.Stop()
		done := simrt.NewSignal()
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(350 * time.Millisecond)
			done.Fire(0)
			return struct{}{}
		})
		for stop := false; !stop; {
			simrt.Select(ctx,
				tk.OnTick(func(at time.Time) { fmt.Println("tick", at.Sub(start)) }),
				done.OnFire(func(int) { stop = true }))
		}
	})
	// Output:
	// tick 100ms
	// tick 200ms
	// tick 300ms
}

func ExampleGoContext() {
	// fetch stands for library code that takes a context.Context.
	fetch := func(ctx context.Context, rt simrt.Context) error {
		tc := ctx.(*simrt.TaskContext) // or keep the *TaskContext at hand
		if d, ok := ctx.Deadline(); ok {
			fmt.Println("deadline in", d.Sub(rt.Now()))
		}
		return tc.Wait(rt) // instead of <-ctx.Done(), which would freeze the simulator
	}
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		err := simrt.Timeout(ctx, 2*time.Second, func() error {
			gctx, cancel := simrt.GoContext(ctx)
			defer cancel()
			return fetch(gctx, ctx)
		})
		fmt.Println(errors.Is(err, context.DeadlineExceeded), ctx.Now().Sub(time.Unix(0, 0)))
	})
	// Output:
	// deadline in 2s
	// true 2s
}
