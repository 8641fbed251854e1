package simrt_test

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// bindInSimulator runs a simulation in which a task parks on ch (a Recv
// that waits for the root's Send), so that ch is bound to that simulator.
func bindInSimulator(t *testing.T, ch *simrt.Chan[int]) {
	t.Helper()
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			v, _ := ch.Recv(ctx)
			return v
		})
		ctx.Sleep(1) // the receiver parks first
		if err := ch.Send(ctx, 7); err != nil {
			t.Errorf("Send: %v", err)
		}
		if v, err := h.Await(ctx); v != 7 || err != nil {
			t.Errorf("Recv = %d, %v; want 7, nil", v, err)
		}
	})
}

// panicText runs f and returns what it panicked with, as text ("" if it
// did not panic).
func panicText(f func()) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// production returns a production runner that logs nowhere.
func production() *realtime.Runner {
	return realtime.New(realtime.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

const secondRuntime = "simrt: Chan used from a second runtime; a primitive belongs to one runtime"

// A Chan bound by one simulator panics, naming the Chan, when a task of a
// second simulator uses it: the second run's schedule would otherwise
// reach the first run's scheduler, or skip locking.
func TestChanUsedFromSecondSimulatorPanics(t *testing.T) {
	ch := simrt.NewChan[int](0)
	bindInSimulator(t, ch)
	got := panicText(func() {
		deterministic.Seeded(2).Start(func(ctx *deterministic.Context) {
			_, _ = ch.TryRecv() // task-less: not checked
			ch.Recv(ctx)
		})
	})
	if !strings.Contains(got, secondRuntime) {
		t.Fatalf("second simulator: panic %q, want it to contain %q", got, secondRuntime)
	}
}

// The production runtime using a Chan that a simulated task bound panics
// the same way: the Chan no longer locks, and production tasks run in
// parallel.
func TestChanUsedFromProductionAfterSimulatorPanics(t *testing.T) {
	ch := simrt.NewChan[int](1)
	bindInSimulator(t, simrt.NewChan[int](0)) // an unrelated Chan: ch stays free
	free := panicText(func() {
		if _, err := production().Start(func(ctx simrt.Context) {
			if err := ch.Send(ctx, 1); err != nil {
				t.Errorf("Send: %v", err)
			}
		}); err != nil {
			t.Errorf("realtime Start: %v", err)
		}
	})
	if free != "" {
		t.Fatalf("a Chan no simulator used panicked in production: %s", free)
	}

	bound := simrt.NewChan[int](0)
	bindInSimulator(t, bound)
	got := panicText(func() {
		_, _ = production().Start(func(ctx simrt.Context) {
			bound.Recv(ctx) // the root's panic propagates out of Start
		})
	})
	if !strings.Contains(got, secondRuntime) {
		t.Fatalf("production after simulator: panic %q, want it to contain %q", got, secondRuntime)
	}
}

// Many tasks of one simulator, and successive runs each with their own
// Chan, use their primitives without the check firing.
func TestChanOneRuntimeDoesNotPanic(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		got := panicText(func() {
			deterministic.Seeded(seed).Start(func(ctx *deterministic.Context) {
				ch := simrt.NewChan[int](0)
				var wg simrt.WaitGroup
				for i := range 4 {
					wg.Go(ctx, func(ctx simrt.Context) {
						if err := ch.Send(ctx, i); err != nil {
							t.Errorf("Send: %v", err)
						}
					})
				}
				for range 4 {
					if _, ok := ch.Recv(ctx); !ok {
						t.Errorf("Recv: closed")
					}
				}
				wg.Wait(ctx)
			})
		})
		if got != "" {
			t.Fatalf("seed %d: one runtime panicked: %s", seed, got)
		}
	}
}
