package simrt

import (
	"github.com/simrt/simrt/internal/core"
)

// Handle is the outcome of a task (from Spawn) or of any other work that
// completes later (from NewCompletion or Ready). Dropping a Handle does not
// stop its task.
type Handle[T any] struct {
	mu      core.Lock
	done    bool
	v       T
	err     error
	q       core.WaitQueue
	abort   Aborter
	onAbort error // what Await returns after Abort: ErrClosed for tasks

	f      func(Context) T // the task's function, until it runs
	result T               // what f returned, until the runtime reports success
}

// spawned is the Task that Spawn hands to the runtime: the handle itself,
// seen through a type that keeps Run and Done out of Handle's method set.
type spawned[T any] Handle[T]

func (s *spawned[T]) Run(ctx Context) {
	h := (*Handle[T])(s)
	f := h.f
	h.f = nil
	h.result = f(ctx)
}

func (s *spawned[T]) Done(err error) {
	h := (*Handle[T])(s)
	if err != nil {
		var zero T
		h.complete(zero, err)
		return
	}
	h.complete(h.result, nil)
}

// Spawn starts f as a new task below ctx and returns its handle. The task
// starts even if the handle is never awaited. When the task ends, for any
// reason, every task it spawned is aborted. Spawning from an aborted context
// returns a handle that is already closed.
//
// The handle completes when the runtime reports the task's outcome (the done
// callback of SpawnTask), not when f returns: by the time Await returns the
// value, the runtime has finished its bookkeeping for the task (it no longer
// counts as running, and its StopSignals are released), in every runtime.
//
// Spawn may be called from any task of the runtime that owns ctx.
func Spawn[T any](ctx Context, f func(ctx Context) T) *Handle[T] {
	h := &Handle[T]{onAbort: ErrClosed, f: f}
	h.abort = ctx.SpawnTask((*spawned[T])(h))
	return h
}

// NewCompletion returns a handle and the function that completes it. Aborting
// such a handle makes Await return ErrAborted; the work itself goes on.
func NewCompletion[T any]() (*Handle[T], func(v T, err error)) {
	h := &Handle[T]{onAbort: ErrAborted}
	return h, h.complete
}

// Ready returns a handle that has already completed with v and err.
func Ready[T any](v T, err error) *Handle[T] {
	h := &Handle[T]{onAbort: ErrAborted}
	h.complete(v, err)
	return h
}

// complete records the outcome; the first call wins.
func (h *Handle[T]) complete(v T, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done, h.v, h.err = true, v, err
	h.q.NotifyAll()
}

// Await parks until the outcome is known and returns it: the task's value,
// ErrClosed if it was aborted or never started, or a *PanicError (matching
// ErrExited) if it panicked and the runtime catches panics.
func (h *Handle[T]) Await(ctx Runtime) (T, error) {
	h.mu.Lock()
	if h.done {
		defer h.mu.Unlock()
		return h.v, h.err
	}
	w := ctx.CurrentTask().Waiter()
	h.mu.Bind(w.Task)
	for {
		h.q.Push(w)
		h.mu.Unlock()
		park(w, &h.mu, &h.q, nil)
		h.mu.Lock()
		h.q.Remove(w)
		if h.done {
			v, err := h.v, h.err
			h.mu.Unlock()
			return v, err
		}
	}
}

// Done reports whether the outcome is known.
func (h *Handle[T]) Done() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.done
}

// Abort stops the task and every task below it; their deferred calls run
// when the runtime next resumes them. Await then returns ErrClosed (or
// ErrAborted for a completion handle). Aborting a finished task changes
// nothing, and Abort may be called more than once.
func (h *Handle[T]) Abort() {
	var zero T
	h.complete(zero, h.onAbort)
	if h.abort != nil {
		h.abort.Abort()
	}
}

// OnDone is a Select case that completes when the outcome is known and
// passes it to f, which may be nil.
func (h *Handle[T]) OnDone(f func(v T, err error)) Case { return &handleCase[T]{h: h, f: f} }

type handleCase[T any] struct {
	h   *Handle[T]
	f   func(T, error)
	v   T
	err error
}

func (c *handleCase[T]) arm(w *core.Waiter) bool {
	h := c.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mu.Bind(w.Task)
	if h.done {
		c.v, c.err = h.v, h.err
		return true
	}
	h.q.Push(w)
	return false
}

func (c *handleCase[T]) disarm(w *core.Waiter) {
	c.h.mu.Lock()
	c.h.q.Remove(w)
	c.h.mu.Unlock()
}

func (c *handleCase[T]) fire() {
	if c.f != nil {
		c.f(c.v, c.err)
	}
}

func (c *handleCase[T]) release() {}

// SelectHandles parks until the first of handles completes and returns its
// index and outcome; every handle is aborted when it returns. With no
// handles it returns -1 and ErrClosed.
func SelectHandles[T any](ctx Runtime, handles ...*Handle[T]) (int, T, error) {
	var zero T
	if len(handles) == 0 {
		return -1, zero, ErrClosed
	}
	defer func() {
		for _, h := range handles {
			h.Abort()
		}
	}()
	var v T
	var err error
	cases := make([]Case, len(handles))
	for i, h := range handles {
		cases[i] = h.OnDone(func(hv T, herr error) { v, err = hv, herr })
	}
	i := Select(ctx, cases...)
	return i, v, err
}
