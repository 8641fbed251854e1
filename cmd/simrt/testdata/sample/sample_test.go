// Package sample is a system under test for cmd/simrt's end-to-end test:
// two tasks race for leadership, and the test fails on the seeds where the
// wrong one wins.
package sample

import (
	"net/netip"
	"os"
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

// TestExit ends its test process with os.Exit(3), from a task, on the
// seeds where the first draw is 0: no hook of Go's sees that exit.
func TestExit(t *testing.T) {
	simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("node"), func(ctx simrt.Context) int {
			if ctx.Rand().IntN(4) == 0 {
				os.Exit(3)
			}
			return 0
		}).Await(ctx)
	})
}

// TestCovered passes on every seed: it partitions two hosts, makes a
// Sometimes true on about half the seeds and calls a Buggify site, for the
// sweep's coverage summary.
func TestCovered(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		ca := ctx.WithHost(a) // declare the hosts: a partition of unused addresses is an error
		ctx.WithHost(b)
		if err := ctx.Network().Partition(a, b); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ca.Dial(netip.AddrPortFrom(b, 80)); err == nil {
			t.Fatal("dial across the partition succeeded")
		}
		simrt.Sometimes(ctx, ctx.Rand().IntN(2) == 0, "sample: heads")
		simrt.Buggify(ctx, "sample_site")
	})
}

// TestGoals passes on every seed and misses its goals: a Sometimes never
// true, a Reachable that no seed reaches (found only in the source) and a
// Buggify site that never fires, for strict mode.
func TestGoals(t *testing.T) {
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Sometimes(ctx, false, "goals: never true")
		if ctx.Rand().IntN(2) == 2 {
			simrt.Reachable(ctx, "goals: never reached")
		}
	})
}

// FuzzSample is a fuzz target, which sweep refuses by name.
func FuzzSample(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {})
}
