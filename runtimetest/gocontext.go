package runtimetest

import (
	"context"
	"errors"
	"time"

	"github.com/simrt/simrt"
)

var goContextCases = []testCase{
	{"GoContextCancel", "GoContext's cancel closes Done and sets Err to context.Canceled; Wait, OnDone and contexts derived with context.WithCancel see it at once", goContextCancel},
	{"GoContextAbort", "a GoContext is cancelled (context.Canceled) when the task that made it is aborted or ends; made from the context of an ended task, it is cancelled already", goContextAbort},
	{"GoContextTimeout", "inside a Timeout, a GoContext reports the deadline in runtime time, is cancelled with context.DeadlineExceeded when the time runs out (the innermost of nested Timeouts that runs out first), and with context.Canceled when Timeout returns first", goContextTimeout},
}

type valueKey struct{}

// isDone reports whether c's Done channel is closed, without blocking.
func isDone(c context.Context) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

func goContextCancel(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		gctx, cancel := simrt.GoContext(ctx)
		if gctx.Err() != nil || isDone(gctx) {
			t.Errorf("a new GoContext is cancelled: Err = %v", gctx.Err())
		}
		if _, ok := gctx.Deadline(); ok {
			t.Errorf("a GoContext made outside any Timeout reports a deadline")
		}
		derivedCancel, cancelDerived := context.WithCancel(gctx)
		defer cancelDerived()
		derived := context.WithValue(derivedCancel, valueKey{}, "v")
		sibling, cancelSibling := context.WithCancel(gctx)
		cancelSibling() // a derived context cancelled first unregisters itself
		waiter := simrt.Spawn(ctx, func(ctx simrt.Context) error {
			var err error
			simrt.Select(ctx, gctx.OnDone(func(e error) { err = e }))
			return err
		})
		ctx.Sleep(settle)
		cancel()
		cancel() // twice is fine
		if !errors.Is(gctx.Err(), context.Canceled) || !isDone(gctx) {
			t.Errorf("after cancel: Err = %v, Done closed = %v", gctx.Err(), isDone(gctx))
		}
		if !errors.Is(derived.Err(), context.Canceled) {
			t.Errorf("a context derived with WithCancel was not cancelled at once: Err = %v", derived.Err())
		}
		if derived.Value(valueKey{}) != "v" {
			t.Errorf("a derived context lost its value")
		}
		if !errors.Is(sibling.Err(), context.Canceled) {
			t.Errorf("sibling Err = %v", sibling.Err())
		}
		if err := gctx.Wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait = %v, want context.Canceled", err)
		}
		var err error
		within(t, ctx, "OnDone", func() { err, _ = waiter.Await(ctx) })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("OnDone passed %v, want context.Canceled", err)
		}
		ran := false
		gctx.AfterFunc(func() { ran = true })
		if !ran {
			t.Errorf("AfterFunc on a cancelled context did not call f at once")
		}
	})
}

func goContextAbort(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		made := simrt.NewOneshot[*simrt.TaskContext]()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			gctx, cancel := simrt.GoContext(ctx)
			defer cancel()
			made.Send(gctx)
			parkForever(ctx)
			return struct{}{}
		})
		gctx, _ := made.Recv(ctx)
		ctx.Sleep(settle)
		if gctx.Err() != nil {
			t.Errorf("the context of a running task is cancelled: %v", gctx.Err())
		}
		h.Abort()
		within(t, ctx, "Wait on the context of an aborted task", func() {
			if err := gctx.Wait(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Wait = %v, want context.Canceled", err)
			}
		})

		ended := simrt.Spawn(ctx, func(ctx simrt.Context) *simrt.TaskContext {
			gctx, _ := simrt.GoContext(ctx) // not cancelled by the task: its end does it
			return gctx
		})
		gctx, _ = ended.Await(ctx)
		within(t, ctx, "Wait on the context of an ended task", func() {
			if err := gctx.Wait(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Wait = %v, want context.Canceled", err)
			}
		})

		self := simrt.NewOneshot[*simrt.Handle[struct{}]]()
		result := simrt.NewUnboundedChan[error]()
		aborted := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			h, _ := self.Recv(ctx)
			h.Abort() // the task runs on until its next park
			gctx, cancel := simrt.GoContext(ctx)
			defer cancel()
			err := gctx.Err()
			if !isDone(gctx) {
				err = errors.New("Done not closed")
			}
			result.Send(ctx, err) // an unbounded Send does not park
			return struct{}{}
		})
		self.Send(aborted)
		// Not Await: an aborted task's handle reports ErrClosed at once, while
		// the task itself runs on to its next park (on another goroutine, in
		// production), so its result may not be sent yet.
		var err error
		within(t, ctx, "the result of the aborted task", func() { err, _ = result.Recv(ctx) })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a GoContext made by an aborted task: Err = %v, want context.Canceled at once", err)
		}
	})
}

func goContextTimeout(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		const d = 20 * time.Millisecond
		goContextDeadline(t, r, ctx, d)
		goContextWatchedDeadline(t, ctx, d)
		goContextNestedDeadline(t, r, ctx, d)
		goContextTimeoutReturns(t, ctx)
	})
}

// goContextDeadline: a GoContext made inside Timeout(d) reports the
// deadline and is cancelled with context.DeadlineExceeded when it passes.
func goContextDeadline(t T, r Runner, ctx simrt.Context, d time.Duration) {
	var waited error
	start := ctx.Now()
	var deadline time.Time
	var hasDeadline bool
	err := simrt.Timeout(ctx, d, func() error {
		gctx, cancel := simrt.GoContext(ctx)
		defer cancel()
		deadline, hasDeadline = gctx.Deadline()
		waited = gctx.Wait(ctx)
		return waited
	})
	if !hasDeadline || deadline.Before(start.Add(d)) || r.Simulated && !deadline.Equal(start.Add(d)) {
		t.Errorf("Deadline = %v, %v; want %v", deadline, hasDeadline, start.Add(d))
	}
	if !errors.Is(waited, context.DeadlineExceeded) {
		t.Errorf("Wait inside Timeout = %v, want context.DeadlineExceeded", waited)
	}
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, simrt.ErrTimeout) {
		t.Errorf("Timeout = %v", err)
	}
}

// goContextWatchedDeadline: another task watching the context sees the
// deadline too.
func goContextWatchedDeadline(t T, ctx simrt.Context, d time.Duration) {
	made := simrt.NewOneshot[*simrt.TaskContext]()
	timed := simrt.Spawn(ctx, func(ctx simrt.Context) error {
		return simrt.Timeout(ctx, d, func() error {
			gctx, cancel := simrt.GoContext(ctx)
			defer cancel()
			made.Send(gctx)
			parkForever(ctx)
			return nil
		})
	})
	gctx, _ := made.Recv(ctx)
	within(t, ctx, "a watcher of a timed-out context", func() {
		var got error
		simrt.Select(ctx, gctx.OnDone(func(err error) { got = err }))
		if !errors.Is(got, context.DeadlineExceeded) {
			t.Errorf("OnDone from another task = %v, want context.DeadlineExceeded", got)
		}
	})
	if err, _ := timed.Await(ctx); !errors.Is(err, simrt.ErrTimeout) {
		t.Errorf("Timeout around a parked task = %v, want ErrTimeout", err)
	}
}

// goContextNestedDeadline: under nested Timeouts whose outer one is the
// shorter, its deadline is reported and it cancels the context made in the
// inner one.
func goContextNestedDeadline(t T, r Runner, ctx simrt.Context, d time.Duration) {
	var waited error
	var deadline time.Time
	var hasDeadline bool
	start := ctx.Now()
	err := simrt.Timeout(ctx, d, func() error {
		return simrt.Timeout(ctx, time.Hour, func() error {
			gctx, cancel := simrt.GoContext(ctx)
			defer cancel()
			deadline, hasDeadline = gctx.Deadline()
			defer func() { waited = gctx.Err() }()
			parkForever(ctx)
			return nil
		})
	})
	if !errors.Is(err, simrt.ErrTimeout) {
		t.Errorf("nested Timeout = %v, want ErrTimeout", err)
	}
	if !hasDeadline || deadline.After(ctx.Now()) || r.Simulated && !deadline.Equal(start.Add(d)) {
		t.Errorf("Deadline under nested Timeouts = %v, %v; want the outer one's, %v", deadline, hasDeadline, start.Add(d))
	}
	if !errors.Is(waited, context.DeadlineExceeded) {
		t.Errorf("Err while the outer Timeout unwinds = %v, want context.DeadlineExceeded", waited)
	}
}

// goContextTimeoutReturns: when Timeout returns first, the context is
// cancelled as it returns.
func goContextTimeoutReturns(t T, ctx simrt.Context) {
	var inside *simrt.TaskContext
	if err := simrt.Timeout(ctx, time.Hour, func() error {
		inside, _ = simrt.GoContext(ctx)
		return nil
	}); err != nil {
		t.Errorf("Timeout = %v", err)
	}
	if !errors.Is(inside.Err(), context.Canceled) {
		t.Errorf("a GoContext after its Timeout returned: Err = %v, want context.Canceled", inside.Err())
	}
}
