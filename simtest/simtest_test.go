package simtest_test

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// workload spawns n tasks that sleep random amounts and report to the root.
func workload(ctx *deterministic.Context, n int) []int {
	ch := simrt.NewChan[int](n)
	for i := range n {
		simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(10)) * time.Millisecond)
			ch.Send(ctx, i)
			return struct{}{}
		})
	}
	order := make([]int, 0, n)
	for range n {
		v, _ := ch.Recv(ctx)
		order = append(order, v)
	}
	return order
}

func TestRunPasses(t *testing.T) {
	ran := false
	simtest.Run(t, deterministic.Config{Seed: 3}, func(t *testing.T, ctx *deterministic.Context) {
		if got := workload(ctx, 5); len(got) != 5 {
			t.Errorf("got %v", got)
		}
		ran = true
	})
	if !ran {
		t.Fatal("root did not run")
	}
}

func TestExplorePasses(t *testing.T) {
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		if got := workload(ctx, 5); len(got) != 5 {
			t.Errorf("got %v", got)
		}
	})
}
