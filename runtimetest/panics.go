package runtimetest

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/simrt/simrt"
)

var panicCases = []testCase{
	{"PanicAbortsRoot", "the root's panic always propagates out of Start with its value, whether or not panics are caught", panicAbortsRoot},
	{"PanicAbortsSpawn", "without CatchPanics a task's panic stops the run: the root is unwound and Start re-panics with the task's value", panicAbortsSpawn},
	{"PanicAbortsSpawnCaught", "with CatchPanics a task's panic becomes a *simrt.PanicError (matching ErrExited) from its handle, and the run goes on", panicAbortsSpawnCaught},
	{"MultiplePanics", "without CatchPanics, when several tasks panic, Start re-panics with one of their values", multiplePanics},
	{"MultiplePanicsCaught", "with CatchPanics every panicking task's handle returns its own PanicError", multiplePanicsCaught},
}

func panicAbortsRoot(t T, r Runner) {
	for _, catch := range []bool{false, true} {
		v, panicked := r.runPanics(t, Options{CatchPanics: catch}, func(ctx simrt.Context) {
			panic("blah")
		})
		if !panicked || v != "blah" {
			t.Errorf("CatchPanics=%v: Start panicked %v with %v, want the root's %q", catch, panicked, v, "blah")
		}
	}
}

func panicAbortsSpawn(t T, r Runner) {
	var rootUnwound atomic.Bool
	v, panicked := r.runPanics(t, Options{}, func(ctx simrt.Context) {
		defer rootUnwound.Store(true)
		simrt.Spawn(ctx, func(simrt.Context) int { panic("blah") })
		parkForever(ctx)
	})
	if !panicked || v != "blah" {
		t.Errorf("Start panicked %v with %v, want the task's %q", panicked, v, "blah")
	}
	if !rootUnwound.Load() {
		t.Errorf("the root's deferred calls did not run before Start returned")
	}
}

func panicAbortsSpawnCaught(t T, r Runner) {
	r.run(t, Options{CatchPanics: true}, func(ctx simrt.Context) {
		_, err := simrt.Spawn(ctx, func(simrt.Context) int { panic("blah") }).Await(ctx)
		if !errors.Is(err, simrt.ErrExited) {
			t.Errorf("Await of a panicked task: err = %v, want ErrExited", err)
		}
		var pe *simrt.PanicError
		if !errors.As(err, &pe) || pe.Value != "blah" {
			t.Errorf("Await of a panicked task: err = %#v, want a *simrt.PanicError with value %q", err, "blah")
		} else if len(pe.Stack) == 0 {
			t.Errorf("PanicError carries no stack")
		}
		if v, err := simrt.Spawn(ctx, func(simrt.Context) int { return 1 }).Await(ctx); v != 1 || err != nil {
			t.Errorf("a task spawned after the caught panic: Await = %v, %v; want 1, nil", v, err)
		}
	})
}

func multiplePanics(t T, r Runner) {
	v, panicked := r.runPanics(t, Options{}, func(ctx simrt.Context) {
		go_ := simrt.NewSignal()
		for i := range 3 {
			simrt.Spawn(ctx, func(ctx simrt.Context) int {
				go_.Wait(ctx)
				panic(fmt.Sprintf("boom %d", i))
			})
		}
		simrt.Reschedule(ctx)
		go_.Fire(0)
		parkForever(ctx)
	})
	s, _ := v.(string)
	if !panicked || !strings.HasPrefix(s, "boom ") {
		t.Errorf("Start panicked %v with %v, want one of the tasks' \"boom N\"", panicked, v)
	}
}

func multiplePanicsCaught(t T, r Runner) {
	r.run(t, Options{CatchPanics: true}, func(ctx simrt.Context) {
		go_ := simrt.NewSignal()
		var hs []*simrt.Handle[int]
		for i := range 3 {
			hs = append(hs, simrt.Spawn(ctx, func(ctx simrt.Context) int {
				go_.Wait(ctx)
				panic(fmt.Sprintf("boom %d", i))
			}))
		}
		go_.Fire(0)
		for i, h := range hs {
			_, err := h.Await(ctx)
			var pe *simrt.PanicError
			if !errors.As(err, &pe) || pe.Value != fmt.Sprintf("boom %d", i) {
				t.Errorf("task %d: err = %v, want a PanicError with value %q", i, err, fmt.Sprintf("boom %d", i))
			}
		}
	})
}
