package runtimetest

import (
	"errors"
	"slices"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var handleCases = []testCase{
	{"HandleCanUseFuturesPool", "handles can be gathered in any order: a Select loop over OnDone collects every result once", handleCanUseFuturesPool},
	{"HandleRunningGaugeAfterCompletion", "a task counts in runtime_tasks_running while it runs, and no longer once Await has returned its value", handleRunningGaugeAfterCompletion},
	{"HandleDroppedKeepsRunning", "dropping a handle neither stops its task nor changes runtime_tasks_running", handleDroppedKeepsRunning},
	{"HandleAbortZeroesRunningGauge", "Abort takes the task out of runtime_tasks_running at once, before it unwinds", handleAbortZeroesRunningGauge},
	{"SelectHandlesAbortsRemaining", "SelectHandles returns the first handle to complete and aborts all the others", selectHandlesAbortsRemaining},
	{"SelectHandlesEmpty", "SelectHandles with no handles returns -1 and ErrClosed", selectHandlesEmpty},
	{"SelectHandlesUnwoundAbortsAll", "a SelectHandles unwound before any handle completed (here by a Timeout) still aborts every handle", selectHandlesUnwoundAbortsAll},
	{"CompletionHandleAbort", "an aborted completion handle returns ErrAborted, even when its value arrives later; the work goes on", completionHandleAbort},
	{"CompletionHandle", "a completion handle returns what its completer gave, first call wins; Ready is complete at once", completionHandle},
}

func handleCanUseFuturesPool(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var pending []*simrt.Handle[int]
		for i := range 10 {
			pending = append(pending, simrt.Spawn(ctx, func(ctx simrt.Context) int {
				ctx.Sleep(time.Duration(10-i) * time.Millisecond)
				return i
			}))
		}
		var got []int
		for len(pending) > 0 {
			var v int
			var err error
			cases := make([]simrt.Case, len(pending))
			for i, h := range pending {
				cases[i] = h.OnDone(func(hv int, herr error) { v, err = hv, herr })
			}
			i := simrt.Select(ctx, cases...)
			if err != nil {
				t.Errorf("handle %d: %v", i, err)
			}
			got = append(got, v)
			pending = slices.Delete(pending, i, i+1)
		}
		slices.Sort(got)
		if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(got, want) {
			t.Errorf("results = %v, want %v", got, want)
		}
	})
}

func handleRunningGaugeAfterCompletion(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		gate := simrt.NewSignal()
		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int { return gate.Wait(ctx) })
		if n := runningTasks(t, ctx, "worker"); n != 1 {
			t.Errorf("running workers = %d, want 1", n)
		}
		gate.Fire(5)
		if v, err := h.Await(ctx); v != 5 || err != nil {
			t.Errorf("Await = %v, %v; want 5, nil", v, err)
		}
		if n := runningTasks(t, ctx, "worker"); n != 0 {
			t.Errorf("running workers after Await = %d, want 0", n)
		}
	})
}

func handleDroppedKeepsRunning(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		gate := simrt.NewSignal()
		out := simrt.NewChan[int](1)
		simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) struct{} {
			out.Send(ctx, gate.Wait(ctx))
			return struct{}{}
		}) // the handle is dropped here
		simrt.Reschedule(ctx)
		if n := runningTasks(t, ctx, "worker"); n != 1 {
			t.Errorf("running workers with the handle dropped = %d, want 1", n)
		}
		gate.Fire(3)
		if v, ok := out.Recv(ctx); v != 3 || !ok {
			t.Errorf("Recv from the task whose handle was dropped = %v, %v; want 3, true", v, ok)
		}
	})
}

func handleAbortZeroesRunningGauge(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			parkForever(ctx)
			return 1
		})
		if n := runningTasks(t, ctx, "worker"); n != 1 {
			t.Errorf("running workers = %d, want 1", n)
		}
		h.Abort()
		if n := runningTasks(t, ctx, "worker"); n != 0 {
			t.Errorf("running workers right after Abort = %d, want 0", n)
		}
	})
}

func selectHandlesAbortsRemaining(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		w := ctx.Child("worker")
		parked := func(ctx simrt.Context) int {
			parkForever(ctx)
			return 0
		}
		hs := []*simrt.Handle[int]{
			simrt.Spawn(w, parked),
			simrt.Spawn(w, func(ctx simrt.Context) int {
				ctx.Sleep(time.Millisecond)
				return 7
			}),
			simrt.Spawn(w, parked),
		}
		i, v, err := simrt.SelectHandles(ctx, hs...)
		if i != 1 || v != 7 || err != nil {
			t.Errorf("SelectHandles = %d, %v, %v; want 1, 7, nil", i, v, err)
		}
		if n := runningTasks(t, ctx, "worker"); n != 0 {
			t.Errorf("running workers after SelectHandles = %d, want 0", n)
		}
		for _, j := range []int{0, 2} {
			if _, err := hs[j].Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("handle %d after SelectHandles: err = %v, want ErrClosed", j, err)
			}
		}
		if v, err := hs[1].Await(ctx); v != 7 || err != nil {
			t.Errorf("winning handle after SelectHandles = %v, %v; want 7, nil", v, err)
		}
	})
}

func selectHandlesEmpty(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		if i, _, err := simrt.SelectHandles[int](ctx); i != -1 || !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("SelectHandles() = %d, %v; want -1, ErrClosed", i, err)
		}
	})
}

func selectHandlesUnwoundAbortsAll(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		w := ctx.Child("worker")
		var hs []*simrt.Handle[int]
		for range 3 {
			hs = append(hs, simrt.Spawn(w, func(ctx simrt.Context) int {
				parkForever(ctx)
				return 1
			}))
		}
		err := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
			_, _, err := simrt.SelectHandles(ctx, hs...)
			return err
		})
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("Timeout around SelectHandles: err = %v, want ErrTimeout", err)
		}
		if n := runningTasks(t, ctx, "worker"); n != 0 {
			t.Errorf("running workers after the select unwound = %d, want 0", n)
		}
		for j, h := range hs {
			if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("handle %d: err = %v, want ErrClosed", j, err)
			}
		}
	})
}

func completionHandleAbort(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h, complete := storage.NewCompletion[int]()
		worked := simrt.NewSignal()
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			complete(9, nil)
			worked.Fire(1)
			return struct{}{}
		})
		h.Abort()
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrAborted) {
			t.Errorf("Await after Abort: err = %v, want ErrAborted", err)
		}
		worked.Wait(ctx) // the work goes on and completes
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrAborted) {
			t.Errorf("Await after the late value: err = %v, want ErrAborted", err)
		}
	})
}

func completionHandle(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		h, complete := storage.NewCompletion[int]()
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			complete(4, nil)
			complete(5, nil) // too late: the first call won
			return struct{}{}
		})
		if v, err := h.Await(ctx); v != 4 || err != nil {
			t.Errorf("Await = %v, %v; want 4, nil", v, err)
		}
		closed, closeIt := storage.NewCompletion[int]()
		closeIt(0, simrt.ErrClosed) // the Go form of a dropped sender
		if _, err := closed.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await of a closed completion: err = %v, want ErrClosed", err)
		}
		ready := storage.Ready(6, nil)
		if !ready.Done() {
			t.Errorf("Ready handle is not done")
		}
		if v, err := ready.Await(ctx); v != 6 || err != nil {
			t.Errorf("Ready Await = %v, %v; want 6, nil", v, err)
		}
	})
}
