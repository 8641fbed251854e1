package simrt_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

func ExampleSpawn() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) time.Duration {
			start := ctx.Now()
			ctx.Sleep(time.Second) // simulated: returns at once in real time
			return ctx.Now().Sub(start)
		})
		slept, err := h.Await(ctx)
		fmt.Println(slept, err)
	})
	// Output: 1s <nil>
}

func ExampleSelect() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		ch := simrt.NewChan[string](1)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(2 * time.Second)
			ch.Send(ctx, "late")
			return struct{}{}
		})
		simrt.Select(ctx,
			ch.OnRecv(func(v string, ok bool) { fmt.Println("received", v) }),
			simrt.After(ctx, time.Second, func() { fmt.Println("gave up after 1s") }),
		)
	})
	// Output: gave up after 1s
}

func ExampleTimeout() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		err := simrt.Timeout(ctx, time.Second, func() error {
			defer fmt.Println("unwound")
			ctx.Sleep(time.Hour)
			return nil
		})
		fmt.Println(errors.Is(err, simrt.ErrTimeout))
	})
	// Output:
	// unwound
	// true
}

func ExampleChan() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		ch := simrt.NewUnboundedChan[int]()
		for i := range 3 {
			ch.Send(ctx, i)
		}
		ch.Close()
		for v, ok := ch.Recv(ctx); ok; v, ok = ch.Recv(ctx) {
			fmt.Print(v, " ")
		}
		fmt.Println()
	})
	// Output: 0 1 2
}
