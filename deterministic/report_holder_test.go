package deterministic_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A task parked on a Lock of a simrt.Mutex, or on an RWMutex held by a
// writer, is listed with the task that holds the lock: the one that took it
// with Lock or OnLock, the writer a release handed it to, or a task that
// ended holding it. A Mutex taken with TryLock says its holder is unknown.
func TestStallNamesLockHolder(t *testing.T) {
	// NoYield: the task ids and the order of parks assume tasks switch
	// only where they park.
	v := verdictOf(t, deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}, func(ctx *deterministic.Context) {
		var held, ended, selected, tried simrt.Mutex
		var rw, handed simrt.RWMutex
		never := simrt.NewSignal()
		spawn := func(name string, f func(ctx simrt.Context)) {
			simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int { f(ctx); return 0 })
		}
		tried.TryLock()
		spawn("holder", func(ctx simrt.Context) { held.Lock(ctx); never.Wait(ctx) })                            // #1
		spawn("quitter", func(ctx simrt.Context) { ended.Lock(ctx) })                                           // #1
		spawn("selector", func(ctx simrt.Context) { simrt.Select(ctx, selected.OnLock(nil)); never.Wait(ctx) }) // #1
		spawn("writer", func(ctx simrt.Context) { rw.Lock(ctx); never.Wait(ctx) })                              // #1
		// handed: the root holds it, "second" waits, and gets it when the
		// root unlocks.
		handed.Lock(ctx)
		spawn("second", func(ctx simrt.Context) { handed.Lock(ctx); never.Wait(ctx) }) // #1
		ctx.Sleep(time.Millisecond)
		handed.Unlock()
		ctx.Sleep(time.Millisecond)
		spawn("w_held", func(ctx simrt.Context) { held.Lock(ctx) })
		spawn("w_ended", func(ctx simrt.Context) { ended.Lock(ctx) })
		spawn("w_selected", func(ctx simrt.Context) { selected.Lock(ctx) })
		spawn("w_tried", func(ctx simrt.Context) { tried.Lock(ctx) })
		spawn("r_rw", func(ctx simrt.Context) { rw.RLock(ctx) })
		spawn("w_rw", func(ctx simrt.Context) { rw.Lock(ctx) })
		spawn("r_handed", func(ctx simrt.Context) { handed.RLock(ctx) })
		never.Wait(ctx)
	})
	if !errors.Is(v, deterministic.ErrStalled) {
		t.Fatalf("verdict %v; want ErrStalled", v.Err)
	}
	text := v.Error()
	for _, c := range []struct{ task, want string }{
		{`"w_held"`, `: Lock of a simrt.Mutex held by task "holder" (#1)`},
		{`"w_ended"`, `: Lock of a simrt.Mutex held by task "quitter" (#2), which has ended`},
		{`"w_selected"`, `: Lock of a simrt.Mutex held by task "selector" (#3)`},
		{`"w_tried"`, `: Lock of a simrt.Mutex taken with TryLock (its holder is unknown)`},
		{`"r_rw"`, `: RLock of a simrt.RWMutex (writer task "writer" (#4), writer waiting)`},
		{`"w_rw"`, `: Lock of a simrt.RWMutex (writer task "writer" (#4))`},
		{`"r_handed"`, `: RLock of a simrt.RWMutex (writer task "second" (#5))`},
	} {
		if line := parkedLine(t, text, c.task); !strings.HasSuffix(line, c.want) {
			t.Errorf("task %s:\n%s\nwant it to end with %q", c.task, line, c.want)
		}
	}
}
