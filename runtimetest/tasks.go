package runtimetest

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var taskCases = []testCase{
	{"ErrorFuture", "what the root computes leaves Start through its closure", errorFuture},
	{"RootFinishes", "Start returns when the root returns, even while another task keeps rescheduling", rootFinishes},
	{"Spawn", "Await returns the value the task returned", spawn},
	{"SpawnTwiceFromOneContext", "one context may spawn any number of tasks; each gets its own result", spawnTwiceFromOneContext},
	{"SpawnAbort", "after Abort, Await returns ErrClosed", spawnAbort},
	{"AbortRunsDefers", "an aborted task unwinds: its deferred calls run and the code after its park does not", abortRunsDefers},
	{"AbortAfterCompletionKeepsResult", "aborting a finished task changes nothing: Await still returns its value", abortAfterCompletionKeepsResult},
	{"SpawnAfterAbort", "spawning from the context of an aborted task (or a Child of it) yields a handle already closed, and the function never runs", spawnAfterAbort},
	{"SpawnAfterCompletion", "spawning from the context of a task that has returned (an escaped context) yields a handle already closed", spawnAfterCompletion},
	{"SelfAbort", "a task that aborts its own handle keeps running until its next park, where it unwinds", selfAbort},
	{"SpawnAbortOnParentAbort", "aborting a task aborts the tasks it spawned", spawnAbortOnParentAbort},
	{"SpawnAbortOnParentCompletion", "when a task returns, the tasks it spawned are aborted", spawnAbortOnParentCompletion},
	{"SpawnCascadingAbort", "aborting a task aborts its children and grandchildren", spawnCascadingAbort},
	{"ChildSurvivesSiblingCompletion", "tasks spawned from sibling Child contexts are independent: one returning does not abort the other", childSurvivesSiblingCompletion},
	{"SiblingsFromOneContextAreIndependent", "two tasks spawned from one context are independent: one returning does not abort the other (Go rule)", siblingsFromOneContextAreIndependent},
	{"SpawnCloneChain", "an abort cascades down a chain of 1,000 tasks, each spawned by the one before", spawnCloneChain},
	{"SpawnSparseCloneChain", "an abort cascades through 1,000 nested Child contexts that never spawned anything themselves", spawnSparseCloneChain},
	{"SpawnWideFanOut", "aborting a task aborts all 10,000 tasks it spawned", spawnWideFanOut},
	{"CircularReferencePreventsCleanup", "tasks deadlocked on each other are still unwound when the root returns: their deferred calls run and Start returns", circularReferencePreventsCleanup},
	{"LateWaker", "waking what a task was parked on after Start returned is harmless", lateWaker},
}

func errorFuture(t T, r Runner) {
	wantErr := errors.New("root failed")
	var got error
	r.run(t, Options{}, func(ctx simrt.Context) { got = wantErr })
	if got != wantErr {
		t.Fatalf("root result after Start = %v, want %v", got, wantErr)
	}
}

func rootFinishes(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for {
				simrt.Reschedule(ctx)
			}
		})
	})
}

func spawn(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		v, err := simrt.Spawn(ctx, func(simrt.Context) int { return 42 }).Await(ctx)
		if v != 42 || err != nil {
			t.Errorf("Await = %v, %v; want 42, nil", v, err)
		}
	})
}

func spawnTwiceFromOneContext(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		a := simrt.Spawn(ctx, func(simrt.Context) int { return 1 })
		b := simrt.Spawn(ctx, func(simrt.Context) int { return 2 })
		va, ea := a.Await(ctx)
		vb, eb := b.Await(ctx)
		if va != 1 || ea != nil || vb != 2 || eb != nil {
			t.Errorf("Await = (%v, %v), (%v, %v); want (1, nil), (2, nil)", va, ea, vb, eb)
		}
	})
}

func spawnAbort(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			parkForever(ctx)
			return 1
		})
		simrt.Reschedule(ctx) // it may or may not have parked: Abort closes it either way
		h.Abort()
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await after Abort: err = %v, want ErrClosed", err)
		}
		h.Abort() // a second Abort is harmless
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await after second Abort: err = %v, want ErrClosed", err)
		}
	})
}

func abortRunsDefers(t T, r Runner) {
	var after atomic.Bool
	r.run(t, Options{}, func(ctx simrt.Context) {
		unwound := simrt.NewChan[string](1)
		parked := simrt.NewSignal()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			defer unwound.TrySend("deferred")
			parked.Fire(0)
			parkForever(ctx)
			after.Store(true)
			return struct{}{}
		})
		parked.Wait(ctx)
		h.Abort()
		if v, ok := unwound.Recv(ctx); !ok || v != "deferred" {
			t.Errorf("Recv from the aborted task's defer = %q, %v", v, ok)
		}
	})
	if after.Load() {
		t.Fatal("code after the aborted park ran")
	}
}

func abortAfterCompletionKeepsResult(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx, func(simrt.Context) int { return 7 })
		if v, err := h.Await(ctx); v != 7 || err != nil {
			t.Errorf("Await = %v, %v; want 7, nil", v, err)
		}
		h.Abort()
		if v, err := h.Await(ctx); v != 7 || err != nil {
			t.Errorf("Await after Abort of a finished task = %v, %v; want 7, nil", v, err)
		}
	})
}

func spawnAfterAbort(t T, r Runner) {
	var ran atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		type ctxs struct{ own, child simrt.Context }
		got := simrt.NewOneshot[ctxs]()
		h := simrt.Spawn(ctx.Child("late"), func(ctx simrt.Context) struct{} {
			got.Send(ctxs{own: ctx, child: ctx.Child("late")})
			parkForever(ctx)
			return struct{}{}
		})
		c, err := got.Recv(ctx)
		if err != nil {
			t.Errorf("Recv: %v", err)
			return
		}
		h.Abort()
		for _, from := range []simrt.Context{c.own, c.child} {
			late := simrt.Spawn(from, func(simrt.Context) int { ran.Add(1); return 1 })
			if !late.Done() {
				t.Errorf("handle spawned from an aborted context is not done at once")
			}
			if _, err := late.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("Await of a task spawned from an aborted context: err = %v, want ErrClosed", err)
			}
		}
		if n := runningTasks(t, ctx, "late"); n != 0 {
			t.Errorf("running tasks named late* = %d, want 0: a closed spawn never counts as running", n)
		}
	})
	if n := ran.Load(); n != 0 {
		t.Fatalf("%d functions spawned from an aborted context ran", n)
	}
}

func spawnAfterCompletion(t T, r Runner) {
	var ran atomic.Bool
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx, func(ctx simrt.Context) simrt.Context { return ctx })
		escaped, err := h.Await(ctx)
		if err != nil {
			t.Errorf("Await: %v", err)
			return
		}
		late := simrt.Spawn(escaped, func(simrt.Context) int { ran.Store(true); return 1 })
		if _, err := late.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await of a task spawned from a finished task's context: err = %v, want ErrClosed", err)
		}
	})
	if ran.Load() {
		t.Fatal("a function spawned from a finished task's context ran")
	}
}

func selfAbort(t T, r Runner) {
	var before, after atomic.Bool
	r.run(t, Options{}, func(ctx simrt.Context) {
		self := simrt.NewOneshot[*simrt.Handle[int]]()
		unwound := simrt.NewSignal()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			defer unwound.Fire(1)
			me, _ := self.Recv(ctx)
			me.Abort()
			before.Store(true) // no park yet: still running
			ctx.Sleep(time.Millisecond)
			after.Store(true)
			return 1
		})
		self.Send(h)
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await of a self-aborted task: err = %v, want ErrClosed", err)
		}
		unwound.Wait(ctx)
	})
	if !before.Load() || after.Load() {
		t.Fatalf("self-aborted task: ran until its park %v, ran past it %v; want true, false", before.Load(), after.Load())
	}
}

func spawnAbortOnParentAbort(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		childH := simrt.NewOneshot[*simrt.Handle[int]]()
		parent := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			childH.Send(simrt.Spawn(ctx, func(ctx simrt.Context) int {
				parkForever(ctx)
				return 1
			}))
			parkForever(ctx)
			return 1
		})
		child, _ := childH.Recv(ctx)
		parent.Abort()
		if _, err := child.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("child Await after parent Abort: err = %v, want ErrClosed", err)
		}
	})
}

func spawnAbortOnParentCompletion(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		parent := simrt.Spawn(ctx, func(ctx simrt.Context) *simrt.Handle[int] {
			return simrt.Spawn(ctx, func(ctx simrt.Context) int {
				parkForever(ctx)
				return 1
			})
		})
		child, err := parent.Await(ctx)
		if err != nil {
			t.Errorf("parent Await: %v", err)
			return
		}
		if _, err := child.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("child Await after its parent returned: err = %v, want ErrClosed", err)
		}
	})
}

func spawnCascadingAbort(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		handles := simrt.NewUnboundedChan[*simrt.Handle[int]]()
		top := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			for range 3 {
				handles.Send(ctx, simrt.Spawn(ctx, func(ctx simrt.Context) int {
					for range 2 {
						handles.Send(ctx, simrt.Spawn(ctx, func(ctx simrt.Context) int {
							parkForever(ctx)
							return 1
						}))
					}
					parkForever(ctx)
					return 1
				}))
			}
			parkForever(ctx)
			return 1
		})
		var all []*simrt.Handle[int]
		for len(all) < 3+3*2 {
			h, _ := handles.Recv(ctx)
			all = append(all, h)
		}
		top.Abort()
		for i, h := range all {
			if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("descendant %d after the top task was aborted: err = %v, want ErrClosed", i, err)
			}
		}
	})
}

// siblingsSurvive spawns two tasks from the contexts first and second
// returns, lets the first return and checks the second still finishes.
func siblingsSurvive(t T, ctx simrt.Context, first, second func(simrt.Context) simrt.Context) {
	h := simrt.Spawn(ctx, func(ctx simrt.Context) error {
		gate := simrt.NewSignal()
		a := simrt.Spawn(first(ctx), func(simrt.Context) int { return 1 })
		b := simrt.Spawn(second(ctx), func(ctx simrt.Context) int { return gate.Wait(ctx) })
		if v, err := a.Await(ctx); v != 1 || err != nil {
			t.Errorf("first sibling Await = %v, %v; want 1, nil", v, err)
		}
		gate.Fire(2)
		if v, err := b.Await(ctx); v != 2 || err != nil {
			t.Errorf("second sibling Await after the first returned = %v, %v; want 2, nil", v, err)
		}
		return nil
	})
	if _, err := h.Await(ctx); err != nil {
		t.Errorf("Await: %v", err)
	}
}

func childSurvivesSiblingCompletion(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		siblingsSurvive(t, ctx,
			func(c simrt.Context) simrt.Context { return c.Child("first") },
			func(c simrt.Context) simrt.Context { return c.Child("second") })
	})
}

func siblingsFromOneContextAreIndependent(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		same := func(c simrt.Context) simrt.Context { return c }
		siblingsSurvive(t, ctx, same, same)
	})
}

// chain spawns depth tasks, each from a context that derive makes out of
// the context of the one before (level 1 is the second task), and returns
// the top handle and every handle.
func chain(ctx simrt.Context, depth int, derive func(c simrt.Context, level int) simrt.Context) (*simrt.Handle[int], []*simrt.Handle[int]) {
	handles := simrt.NewUnboundedChan[*simrt.Handle[int]]()
	var link func(ctx simrt.Context, left int) int
	link = func(ctx simrt.Context, left int) int {
		if left > 0 {
			c := derive(ctx, depth-left)
			handles.Send(ctx, simrt.Spawn(c, func(ctx simrt.Context) int { return link(ctx, left-1) }))
		}
		parkForever(ctx)
		return 1
	}
	top := simrt.Spawn(ctx, func(ctx simrt.Context) int { return link(ctx, depth-1) })
	all := []*simrt.Handle[int]{top}
	for len(all) < depth {
		h, _ := handles.Recv(ctx)
		all = append(all, h)
	}
	return top, all
}

func checkChainAborted(t T, ctx simrt.Context, top *simrt.Handle[int], all []*simrt.Handle[int]) {
	top.Abort()
	closed := 0
	for _, h := range all {
		if _, err := h.Await(ctx); errors.Is(err, simrt.ErrClosed) {
			closed++
		}
	}
	if closed != len(all) {
		t.Errorf("%d of %d tasks closed after aborting the top of the chain", closed, len(all))
	}
}

func spawnCloneChain(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		top, all := chain(ctx, 1000, func(c simrt.Context, _ int) simrt.Context { return c })
		checkChainAborted(t, ctx, top, all)
	})
}

func spawnSparseCloneChain(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		// The top task derives 1,000 nested Child contexts and spawns only
		// from the innermost; the next five tasks each add one more level.
		top, all := chain(ctx, 6, func(c simrt.Context, level int) simrt.Context {
			n := 1
			if level == 1 {
				n = 1000
			}
			for range n {
				c = c.Child("c")
			}
			return c
		})
		checkChainAborted(t, ctx, top, all)
	})
}

func spawnWideFanOut(t T, r Runner) {
	const width = 10_000
	r.run(t, Options{}, func(ctx simrt.Context) {
		handles := simrt.NewOneshot[[]*simrt.Handle[int]]()
		top := simrt.Spawn(ctx.Child("fan"), func(ctx simrt.Context) int {
			hs := make([]*simrt.Handle[int], width)
			for i := range hs {
				hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) int {
					parkForever(ctx)
					return 1
				})
			}
			handles.Send(hs)
			parkForever(ctx)
			return 1
		})
		hs, _ := handles.Recv(ctx)
		if n := runningTasks(t, ctx, "fan"); n != width+1 {
			t.Errorf("running tasks named fan = %d, want %d", n, width+1)
		}
		top.Abort()
		if n := runningTasks(t, ctx, "fan"); n != 0 {
			t.Errorf("running tasks named fan after Abort = %d, want 0", n)
		}
		closed := 0
		for _, h := range hs {
			if _, err := h.Await(ctx); errors.Is(err, simrt.ErrClosed) {
				closed++
			}
		}
		if closed != width {
			t.Errorf("%d of %d children closed after aborting their parent", closed, width)
		}
	})
}

func circularReferencePreventsCleanup(t T, r Runner) {
	var unwound atomic.Int32
	r.run(t, Options{}, func(ctx simrt.Context) {
		ab, ba := simrt.NewChan[int](1), simrt.NewChan[int](1)
		ready := simrt.NewChan[struct{}](2)
		for _, p := range [][2]*simrt.Chan[int]{{ab, ba}, {ba, ab}} {
			in, out := p[0], p[1]
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				defer unwound.Add(1)
				ready.Send(ctx, struct{}{})
				v, _ := in.Recv(ctx) // each waits for the other: a deadlock
				out.Send(ctx, v)
				return struct{}{}
			})
		}
		ready.Recv(ctx)
		ready.Recv(ctx)
	})
	if n := unwound.Load(); n != 2 {
		t.Fatalf("%d of 2 deadlocked tasks unwound when the runtime ended", n)
	}
}

func lateWaker(t T, r Runner) {
	ch := simrt.NewChan[int](1)
	sig := simrt.NewSignal()
	once := simrt.NewOneshot[int]()
	var mu simrt.Mutex
	comp, complete := storage.NewCompletion[int]()
	r.run(t, Options{}, func(ctx simrt.Context) {
		mu.Lock(ctx) // held until the end: the locker below never gets it
		waits := []func(ctx simrt.Context){
			func(ctx simrt.Context) { ch.Recv(ctx) },
			func(ctx simrt.Context) { sig.Wait(ctx) },
			func(ctx simrt.Context) { once.Recv(ctx) },
			func(ctx simrt.Context) { mu.Lock(ctx) },
			func(ctx simrt.Context) { comp.Await(ctx) },
			func(ctx simrt.Context) { simrt.Select(ctx, ch.OnRecv(nil), sig.OnFire(nil)) },
		}
		parked := simrt.NewChan[struct{}](len(waits))
		for _, wait := range waits {
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				parked.Send(ctx, struct{}{})
				wait(ctx)
				return struct{}{}
			})
		}
		for range waits {
			parked.Recv(ctx)
		}
		simrt.Reschedule(ctx)
	})
	if v := catchPanic(func() {
		ch.TrySend(1)
		ch.Close()
		sig.Fire(1)
		once.Send(1)
		mu.Unlock()
		complete(1, nil)
	}); v != nil {
		t.Fatalf("waking after the runtime ended panicked: %v", v)
	}
}
