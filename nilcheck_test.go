package simrt_test

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// onBothRuntimes runs body as the root task of a simulation and of the
// production runtime.
func onBothRuntimes(t *testing.T, body func(t *testing.T, ctx simrt.Context)) {
	t.Run("deterministic", func(t *testing.T) {
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) { body(t, ctx) })
	})
	t.Run("realtime", func(t *testing.T) {
		if _, err := production().Start(func(ctx simrt.Context) { body(t, ctx) }); err != nil {
			t.Errorf("realtime Start: %v", err)
		}
	})
}

// A nil function or Context given to an entry point panics at the call,
// with a message naming the entry point, in both runtimes; not as a nil
// dereference inside a task or the runtime later.
func TestNilArgumentsPanicAtTheCall(t *testing.T) {
	onBothRuntimes(t, func(t *testing.T, ctx simrt.Context) {
		var wg simrt.WaitGroup
		var once simrt.Once
		cases := []struct {
			want string
			call func()
		}{
			{"simrt: Spawn called with a nil function", func() { simrt.Spawn[int](ctx, nil) }},
			{"simrt: Spawn called with a nil Context", func() { simrt.Spawn(nil, func(simrt.Context) int { return 1 }) }},
			{"simrt: WaitGroup.Go called with a nil function", func() { wg.Go(ctx, nil) }},
			{"simrt: Once.Do called with a nil function", func() { once.Do(ctx, nil) }},
			{"simrt: Timeout called with a nil function", func() { simrt.Timeout(ctx, time.Second, nil) }},
			{"simrt: Select called with a nil Case (case 1)", func() { simrt.Select(ctx, simrt.After(ctx, 0, nil), nil) }},
			{"simrt: SelectBiased called with a nil Case (case 0)", func() { simrt.SelectBiased(ctx, nil) }},
			{"simrt: Select called with a nil Context", func() { simrt.Select(nil) }},
			{"simrt: GoContext called with a nil Context", func() { simrt.GoContext(nil) }},
			{"simrt: Reschedule called with a nil Context", func() { simrt.Reschedule(nil) }},
		}
		for _, c := range cases {
			if got := panicText(c.call); got != c.want {
				t.Errorf("panic = %q, want %q", got, c.want)
			}
		}
		// The failed calls changed nothing: the group counts no task, and
		// the Once still runs its first real function.
		wg.Wait(ctx)
		ran := false
		once.Do(ctx, func() { ran = true })
		if !ran {
			t.Errorf("Once.Do(nil) used up the Once")
		}
	})
}
