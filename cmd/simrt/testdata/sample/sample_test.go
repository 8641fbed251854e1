// Package sample is a system under test for cmd/simrt's end-to-end test:
// two tasks race for leadership, and the test fails on the seeds where the
// wrong one wins.
package sample

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

func TestLeader(t *testing.T) {
	simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
		winner := simrt.NewChan[string](2)
		for _, name := range []string{"a", "b", "c"} {
			simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int {
				ctx.Sleep(time.Duration(ctx.Rand().IntN(20)) * time.Millisecond)
				winner.Send(ctx, name)
				return 0
			})
		}
		if w, _ := winner.Recv(ctx); w == "c" {
			t.Fatalf("c became leader at %v", ctx.Now())
		}
	})
}

// TestNotExplore imports simtest (through this file) but does not call
// Explore: a sweep of it runs no seed.
func TestNotExplore(t *testing.T) {}

// TestCrash kills its test process on the seeds where the first draw is
// 0: a panic on a native goroutine, which no recover catches.
func TestCrash(t *testing.T) {
	simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
		if ctx.Rand().IntN(4) == 0 {
			done := make(chan struct{})
			go func() { panic("boom in a native goroutine") }()
			<-done
		}
	})
}
