package deterministic_test

import (
	"fmt"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

func ExampleRunner_Start() {
	deterministic.New(deterministic.Config{Seed: 1}).Start(func(ctx *deterministic.Context) {
		ctx.Sleep(time.Second)
		fmt.Println(ctx.Now().Sub(time.Unix(0, 0)))
	})
	// Output: 1s
}

func ExampleRunner_StartAndRecover() {
	cp := deterministic.Seeded(1).StartAndRecover(func(ctx *deterministic.Context) {
		ctx.RegisterHost("db", nil)
		ctx.Sleep(time.Minute)
	})
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		fmt.Println("resumed at", ctx.Now().Sub(time.Unix(0, 0)))
	})
	// Output: resumed at 1m0s
}

func ExampleContext_Auditor() {
	state := func() string {
		var s string
		deterministic.Seeded(9).Start(func(ctx *deterministic.Context) {
			for range 3 {
				simrt.Spawn(ctx.Child("t"), func(ctx simrt.Context) int { return ctx.Rand().IntN(10) })
			}
			simrt.Reschedule(ctx)
			s = ctx.Auditor().State()
		})
		return s
	}
	fmt.Println(state() == state())
	// Output: true
}
