package runtimetest

import (
	"errors"
	"sync/atomic"

	"github.com/simrt/simrt"
)

// spawnAbortCases are the rules of abort around the spawn path: what a
// spawn from an aborted or ended context yields, and what an abort reaches
// while tasks are being spawned and ending all the time. They hold any
// change to how a task enters and leaves the supervision tree (linking a
// task lazily, or releasing it without the tree's lock) to the rules.
var spawnAbortCases = []testCase{
	{"SpawnFromEndedTaskClosedAtOnce", "spawning from the context (or a Child of it) of a task that has returned, among tasks that return all the time, yields a handle already closed, and the function never runs", spawnFromEndedTaskClosedAtOnce},
	{"AbortRightAfterSpawn", "a task aborted right after its spawn has its handle closed at once, and no longer counts as running (that it then never runs its function is checked inside each runtime, where the order is known)", abortBeforeFirstRun},
	{"AbortReachesRunningChild", "aborting a task closes the handle of a child it just spawned that is running without parking, at once, and the child unwinds at its next park", abortReachesRunningChild},
	{"AbortAmongEndedSiblings", "aborting a task reaches every running child it spawned, however many of its children have ended around them", abortAmongEndedSiblings},
	{"StopReachesEverySpawn", "when the root returns, the shutdown reaches every task spawned up to it, among thousands that ended", stopReachesEverySpawn},
}

func spawnFromEndedTaskClosedAtOnce(t T, r Runner) {
	var ran atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		for i := range 300 {
			h := simrt.Spawn(ctx, func(ctx simrt.Context) simrt.Context { return ctx })
			escaped, err := h.Await(ctx)
			if err != nil {
				t.Errorf("Await: %v", err)
				return
			}
			from := escaped
			if i%2 == 1 {
				from = escaped.Child("late")
			}
			late := simrt.Spawn(from, func(simrt.Context) int { ran.Add(1); return 1 })
			if !late.Done() {
				t.Errorf("spawn %d: handle spawned from an ended task's context is not done at once", i)
				return
			}
			if _, err := late.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("spawn %d: Await = %v, want ErrClosed", i, err)
				return
			}
		}
	})
	if n := ran.Load(); n != 0 {
		t.Fatalf("%d functions spawned from ended tasks' contexts ran", n)
	}
}

func abortBeforeFirstRun(t T, r Runner) {
	const n = 200
	r.run(t, Options{}, func(ctx simrt.Context) {
		hs := make([]*simrt.Handle[int], n)
		for i := range hs {
			hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) int {
				simrt.Reschedule(ctx)
				return 1
			})
			hs[i].Abort()
			if !hs[i].Done() {
				t.Errorf("task %d: handle not done right after Abort", i)
			}
		}
		// A spawn is a scheduling point, and a task may run in parallel,
		// so a task may have returned before its Abort: then Await keeps
		// its value. Otherwise the Abort closed the handle.
		for i, h := range hs {
			if v, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) && (err != nil || v != 1) {
				t.Errorf("task %d: Await = %v, %v; want ErrClosed (or 1, nil had it returned first)", i, v, err)
			}
		}
		if k := runningTasks(t, ctx, ""); k != 0 {
			t.Errorf("running tasks after the aborts = %d, want 0", k)
		}
	})
}

func abortReachesRunningChild(t T, r Runner) {
	var unwound, pastPark atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		started := simrt.NewOneshot[struct{}]()
		childHandle := simrt.NewOneshot[*simrt.Handle[int]]()
		var release atomic.Bool
		parent := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
				defer unwound.Add(1)
				started.Send(struct{}{})
				// Running, never parking, until the test says (a
				// simulator runs one task at a time: there the child has
				// to park for the root to go on).
				for !r.Simulated && !release.Load() {
				}
				parkForever(ctx)
				pastPark.Add(1)
				return 1
			})
			childHandle.Send(h)
			parkForever(ctx)
			return 0
		})
		h, err := childHandle.Recv(ctx)
		if err != nil {
			t.Errorf("Recv: %v", err)
			return
		}
		if _, err := started.Recv(ctx); err != nil {
			t.Errorf("Recv: %v", err)
			return
		}
		parent.Abort()
		if !h.Done() {
			t.Errorf("child's handle not done right after its parent's Abort")
		}
		release.Store(true)
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("child's Await = %v, want ErrClosed", err)
		}
		if _, err := parent.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("parent's Await = %v, want ErrClosed", err)
		}
	})
	if p := pastPark.Load(); p != 0 {
		t.Errorf("the aborted child ran past its park")
	}
	if u := unwound.Load(); u != 1 {
		t.Errorf("the aborted child's deferred call ran %d times, want 1", u)
	}
}

// spawnChurn spawns, from ctx, short tasks that end at once and, every
// tenth, a task that parks until it is aborted (counting in started and
// unwound when its function starts and unwinds), and returns the handles
// of the parked ones. It awaits each short task, so the ended tasks sit among
// the running ones in the spawner's children.
func spawnChurn(t T, ctx simrt.Context, n int, started, unwound *atomic.Int32) []*simrt.Handle[int] {
	var parked []*simrt.Handle[int]
	for i := range n {
		if i%10 == 3 {
			parked = append(parked, simrt.Spawn(ctx, func(ctx simrt.Context) int {
				started.Add(1)
				defer unwound.Add(1)
				parkForever(ctx)
				return 1
			}))
			continue
		}
		if _, err := simrt.Spawn(ctx, func(simrt.Context) int { return i }).Await(ctx); err != nil {
			t.Errorf("Await of short task %d: %v", i, err)
			return parked
		}
	}
	return parked
}

func abortAmongEndedSiblings(t T, r Runner) {
	const n = 3000
	var started, unwound atomic.Int32
	var parked int
	r.run(t, Options{}, func(ctx simrt.Context) {
		kids := simrt.NewOneshot[[]*simrt.Handle[int]]()
		parent := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			kids.Send(spawnChurn(t, ctx, n, &started, &unwound))
			parkForever(ctx)
			return 0
		})
		hs, err := kids.Recv(ctx)
		if err != nil {
			t.Errorf("Recv: %v", err)
			return
		}
		parked = len(hs)
		parent.Abort()
		for i, h := range hs {
			if !h.Done() {
				t.Errorf("child %d: handle not done right after its parent's Abort", i)
			}
			if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("child %d: Await = %v, want ErrClosed", i, err)
			}
		}
		if k := runningTasks(t, ctx, ""); k != 0 {
			t.Errorf("running tasks after the abort = %d, want 0", k)
		}
	})
	// A child the abort reached before it first ran never started.
	if s, u := started.Load(), unwound.Load(); u != s || parked != n/10 {
		t.Errorf("%d of %d started children unwound; %d parked, want %d", u, s, parked, n/10)
	}
}

func stopReachesEverySpawn(t T, r Runner) {
	const n = 3000
	var started, unwound atomic.Int32
	var parked int
	r.run(t, Options{}, func(ctx simrt.Context) {
		parked = len(spawnChurn(t, ctx, n, &started, &unwound))
	})
	// Start has returned, so every task has ended; one the shutdown reached
	// before it first ran never started.
	if s, u := started.Load(), unwound.Load(); u != s || parked != n/10 {
		t.Errorf("%d of %d started tasks unwound at the shutdown; %d parked, want %d", u, s, parked, n/10)
	}
}
