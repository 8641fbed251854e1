package runtimetest

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

var shutdownCases = []testCase{
	{"Shutdown", "Stop fires every StopSignal with its value; a signal taken after Stop has already fired with it", shutdown},
	{"ShutdownMultipleSignals", "Stop returns only after every task holding a StopSignal taken before it has finished its cleanup", shutdownMultipleSignals},
	{"ShutdownTimeout", "Stop with a timeout returns ErrTimeout while a holder never lets go; the stop itself has happened", shutdownTimeout},
	{"ShutdownMultipleStopCalls", "concurrent Stops all wait for the same holders and all return nil; the first value wins; a Stop after completion returns at once", shutdownMultipleStopCalls},
	{"UnfulfilledShutdown", "tasks waiting on a StopSignal that never fires do not keep Start from returning; they are unwound", unfulfilledShutdown},
	{"ShutdownHolderAborted", "a StopSignal held by a task that is aborted is released by the abort: Stop does not wait for it", shutdownHolderAborted},
	{"StopSignalRelease", "Release ends a hold before its task ends, and a released signal still reports the stop value", stopSignalRelease},
}

// holdStop spawns a task that takes a StopSignal, then runs body with it,
// and returns once the signal has been taken.
func holdStop[T any](ctx simrt.Context, body func(ctx simrt.Context, s *simrt.StopSignal) T) *simrt.Handle[T] {
	taken := simrt.NewSignal()
	h := simrt.Spawn(ctx, func(ctx simrt.Context) T {
		s := ctx.Stopped()
		taken.Fire(0)
		return body(ctx, s)
	})
	taken.Wait(ctx)
	return h
}

func shutdown(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) int { return s.Wait(ctx) })
		if err := ctx.Stop(9, 0); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if v, err := h.Await(ctx); v != 9 || err != nil {
			t.Errorf("holder saw %v, %v; want 9, nil", v, err)
		}
		late := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			s := ctx.Stopped()
			if _, fired := s.Fired(); !fired {
				t.Errorf("a StopSignal taken after Stop has not fired")
			}
			return s.Wait(ctx)
		})
		if v, err := late.Await(ctx); v != 9 || err != nil {
			t.Errorf("late task saw %v, %v; want 9, nil", v, err)
		}
	})
}

func shutdownMultipleSignals(t T, r Runner) {
	var cleaned atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		for i := range 3 {
			holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
				s.Wait(ctx)
				ctx.Sleep(time.Duration(i+1) * 10 * time.Millisecond) // cleanup work
				cleaned.Add(1)
				return struct{}{}
			})
		}
		start := ctx.Now()
		if err := ctx.Stop(1, 0); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if n := cleaned.Load(); n != 3 {
			t.Errorf("Stop returned after %d of 3 holders cleaned up", n)
		}
		if d := ctx.Now().Sub(start); d < 30*time.Millisecond {
			t.Errorf("Stop returned after %v, before the slowest cleanup (30ms)", d)
		}
	})
}

func shutdownTimeout(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
			parkForever(ctx) // never lets go
			return struct{}{}
		})
		if err := ctx.Stop(1, 100*time.Millisecond); !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("Stop with a holder that never lets go: err = %v, want ErrTimeout", err)
		}
		if v, fired := ctx.Stopped().Fired(); !fired || v != 1 {
			t.Errorf("after a timed-out Stop, Stopped().Fired() = %v, %v; want 1, true", v, fired)
		}
	})
}

func shutdownMultipleStopCalls(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		release := simrt.NewSignal()
		seen := simrt.NewChan[int](1)
		holder := holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
			seen.Send(ctx, s.Wait(ctx))
			release.Wait(ctx)
			return struct{}{}
		})
		first := simrt.Spawn(ctx, func(ctx simrt.Context) error { return ctx.Stop(42, 0) })
		if v, _ := seen.Recv(ctx); v != 42 {
			t.Errorf("holder saw %d, want 42", v)
		}
		second := simrt.Spawn(ctx, func(ctx simrt.Context) error { return ctx.Stop(43, 0) })
		ctx.Sleep(10 * time.Millisecond) // give a wrong Stop the chance to return early
		if first.Done() || second.Done() {
			t.Errorf("a Stop returned while a holder was still working: first %v, second %v", first.Done(), second.Done())
		}
		release.Fire(0)
		for i, h := range []*simrt.Handle[error]{first, second} {
			if v, err := h.Await(ctx); v != nil || err != nil {
				t.Errorf("Stop %d = %v (Await err %v), want nil", i+1, v, err)
			}
		}
		if _, err := holder.Await(ctx); err != nil {
			t.Errorf("holder: %v", err)
		}
		if v, _ := ctx.Stopped().Fired(); v != 42 {
			t.Errorf("stop value = %d, want the first Stop's 42", v)
		}
		// A Stop after completion returns at once: even the shortest
		// timeout is not reached.
		if err := ctx.Stop(44, time.Nanosecond); err != nil {
			t.Errorf("Stop after completion: %v, want nil at once", err)
		}
	})
}

func unfulfilledShutdown(t T, r Runner) {
	var unwound atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		for range 3 {
			holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
				defer unwound.Add(1)
				s.Wait(ctx)
				t.Errorf("a StopSignal fired without Stop")
				return struct{}{}
			})
		}
	})
	if n := unwound.Load(); n != 3 {
		t.Fatalf("%d of 3 waiting tasks unwound when the root returned", n)
	}
}

func stopSignalRelease(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
			v := s.Wait(ctx)
			s.Release()
			s.Release() // a second Release is harmless
			if got, fired := s.Fired(); !fired || got != v {
				t.Errorf("released signal: Fired() = %v, %v; want %v, true", got, fired, v)
			}
			parkForever(ctx) // the task goes on; its hold is over
			return struct{}{}
		})
		if err := ctx.Stop(5, 0); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if h.Done() {
			t.Errorf("the holder ended; the case meant it to outlive its hold")
		}
	})
}

func shutdownHolderAborted(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := holdStop(ctx, func(ctx simrt.Context, s *simrt.StopSignal) struct{} {
			parkForever(ctx) // never waits for the signal, never releases it
			return struct{}{}
		})
		h.Abort()
		h.Await(ctx)
		if err := ctx.Stop(1, 0); err != nil {
			t.Errorf("Stop after the holder was aborted: %v", err)
		}
	})
}
