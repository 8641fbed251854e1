package deterministic

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// Pace with a nil f panics at once, in the caller, naming Pace; on both
// runtimes' contexts.
func TestPaceNilFuncPanicsInCaller(t *testing.T) {
	Seeded(1).Start(func(ctx *Context) {
		mustPanic(t, "deterministic.Pace: nil f", func() { Pace[int](ctx, time.Second, nil) })
		var other simrt.Context = struct{ simrt.Context }{ctx} // not the simulator's own context
		mustPanic(t, "deterministic.Pace: nil f", func() { Pace[int](other, time.Second, nil) })
	})
}

// A panic in f is raised again in the calling task, where the run reports
// it as any task panic (Start panics with its value); it does not crash the
// process.
func TestPacePanicReachesCallingTask(t *testing.T) {
	var recovered any
	var at time.Duration
	Seeded(1).Start(func(ctx *Context) {
		t0 := ctx.Now()
		func() {
			defer func() { recovered, at = recover(), ctx.Now().Sub(t0) }()
			Pace(ctx, time.Second, func() int { panic("boom in f") })
		}()
	})
	if recovered != "boom in f" || at != time.Second {
		t.Fatalf("the calling task recovered %v after %v; want the panic of f after the latency, 1s", recovered, at)
	}
	// Not recovered: the run fails like any task panic.
	defer func() {
		if r := recover(); r != "boom in f" {
			t.Fatalf("run panicked with %v; want the panic of f", r)
		}
	}()
	Seeded(1).Start(func(ctx *Context) {
		Pace(ctx, 0, func() int { panic("boom in f") })
	})
}
