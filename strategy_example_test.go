package simrt_test

import (
	"fmt"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

func ExampleAdaptive() {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		in := []int{1, 2, 3, 4}
		for _, p := range []int{1, 4} {
			s := ctx.Strategy(p)
			sum := simrt.Adaptive(s, len(in),
				func() (n int) { // one worker: a plain loop
					for _, v := range in {
						n += v
					}
					return n
				},
				func() int { // several: split the work
					return simrt.Fold(s, in, func() int { return 0 },
						func(a, v int) int { return a + v }, func(a, b int) int { return a + b })
				})
			fmt.Println(p, sum)
		}
	})
	// Output:
	// 1 10
	// 4 10
}
