package simrt

import (
	"sync/atomic"

	"github.com/simrt/simrt/internal/core"
)

// Handle is the outcome of a task (from Spawn) or of a device's work that
// completes later (a blob's StartSync; devices make such handles with
// storage.NewCompletion and storage.Ready). Dropping a Handle does not
// stop its task.
type Handle[T any] struct {
	mu core.Lock
	// state holds handleDone, set under mu once the outcome is final and no
	// waiter is queued any more (read with atomic.LoadUint32, no lock), and
	// handleTask, set when the handle is made.
	state uint32
	// v is the value. A task's handle never writes it on completion: its
	// task's Run stores what f returned, and the value counts only if the
	// task then succeeds (see value).
	v     T
	err   error
	q     core.WaitQueue
	abort core.Aborter
	f     func(Context) T // the task's function, until it runs
}

const (
	handleDone uint32 = 1 << iota // the outcome is known
	handleTask                    // from Spawn: ErrClosed after Abort (not ErrAborted), and v set by Run
)

// spawned is the Task that Spawn hands to the runtime: the handle itself,
// seen through a type that keeps Run and Done out of Handle's method set.
type spawned[T any] Handle[T]

func (s *spawned[T]) Run(ctx core.Plumbing) {
	h := (*Handle[T])(s)
	f := h.f
	h.f = nil
	h.v = f(ctx.(Context)) // read only once Done(nil) has completed the handle
}

func (s *spawned[T]) Done(err error) {
	var zero T
	(*Handle[T])(s).complete(zero, err) // a task's handle keeps the v from Run
}

// Spawn starts f as a new task below ctx and returns its handle. The task
// starts even if the handle is never awaited. When the task ends, for any
// reason, every task it spawned is aborted. Spawning from an aborted context
// returns a handle that is already closed.
//
// The handle completes when the runtime reports the task's outcome (the
// Done call of the runtime's SpawnTask), not when f returns: by the time
// Await returns the value, the runtime has finished its bookkeeping for the
// task (it no longer counts as running, and its StopSignals are released),
// in every runtime.
//
// Spawn may be called from any task of the runtime that owns ctx. It
// panics at the call if ctx or f is nil.
func Spawn[T any](ctx Context, f func(ctx Context) T) *Handle[T] {
	mustContext(ctx == nil, "Spawn")
	mustFunc(f == nil, "Spawn")
	if rs, ok := ctx.(core.RecordSpawner); ok {
		b := &spawnedRecord[T]{h: Handle[T]{state: handleTask, f: f}}
		b.h.abort = rs.SpawnRecord((*spawned[T])(&b.h), &b.rec)
		return &b.h
	}
	h := &Handle[T]{state: handleTask, f: f}
	h.abort = ctx.SpawnTask((*spawned[T])(h))
	return h
}

// spawnedRecord is a spawned task's handle and the runtime's record of the
// task in one allocation (see core.RecordSpawner). The handle is first, so
// a pointer to it is a pointer to the whole, and each keeps the other alive.
type spawnedRecord[T any] struct {
	h   Handle[T]
	rec core.TaskRecord
}

func init() { core.BindCompletion = bindCompletion }

// completable is a handle made outside Spawn, as bindCompletion sees it.
type completable interface{ bindCompletion(complete any) }

// bindCompletion is core.BindCompletion: storage.NewCompletion's way to the
// function that completes a handle.
func bindCompletion(h, complete any) { h.(completable).bindCompletion(complete) }

func (h *Handle[T]) bindCompletion(complete any) {
	if atomic.LoadUint32(&h.state) != 0 {
		panic("simrt: a completion bound to a task's or a completed handle")
	}
	*complete.(*func(T, error)) = h.complete
}

// complete records the outcome; the first call wins. The waiters are woken
// after the lock is released, so that they do not find it still held.
func (h *Handle[T]) complete(v T, err error) {
	var buf [2]*core.Task
	h.mu.Lock()
	st := h.state
	if st&handleDone != 0 {
		h.mu.Unlock()
		return
	}
	if st&handleTask == 0 {
		h.v = v
	}
	h.err = err
	woken := h.q.TakeAll(buf[:0])
	atomic.StoreUint32(&h.state, st|handleDone)
	h.mu.Unlock()
	for _, t := range woken {
		t.Unpark()
	}
}

// done reports whether the outcome is known; value may then be read
// without the lock.
func (h *Handle[T]) done() bool { return atomic.LoadUint32(&h.state)&handleDone != 0 }

// value returns the outcome; done must be true. A task that did not succeed
// may still have stored a value (it was aborted after f returned, racing
// with its Run), which is not read.
func (h *Handle[T]) value() (T, error) {
	if h.err != nil && h.state&handleTask != 0 {
		var zero T
		return zero, h.err
	}
	return h.v, h.err
}

// Await parks until the outcome is known and returns it: the task's value,
// ErrClosed if it was aborted or never started, or a *PanicError (matching
// ErrExited) if it panicked and the runtime catches panics.
//
// Await(nil) of a handle that is already done returns its outcome and is
// no scheduling point (code without a context, such as storage/faulty's
// journal, reads finished handles so); Await(nil) of a pending handle
// panics, naming the call, as does Await on a nil *Handle.
func (h *Handle[T]) Await(ctx Caller) (T, error) {
	mustHandle(h == nil, "Handle.Await")
	var t *core.Task
	if ctx != nil {
		t = ctx.CurrentTask()
		h.mu.Enter(t)
	}
	if h.done() {
		return h.value()
	}
	if t == nil {
		panic("simrt: Handle.Await called with a nil Context on a handle that is not done (nil is allowed only once Done reports true)")
	}
	h.mu.Lock()
	if h.done() {
		h.mu.Unlock()
		return h.value()
	}
	w := t.Waiter() // what waiter does, with the task found once
	h.mu.Bind(t)
	for {
		h.q.Push(w)
		h.mu.Unlock()
		core.ParkQueued(&h.mu, w, &h.q, (*awaitWait[T])(h), nil)
		if h.done() { // complete took w off the queue before setting done
			return h.value()
		}
		h.mu.Lock() // a spurious wake
		h.q.Remove(w)
		if h.done() {
			h.mu.Unlock()
			return h.value()
		}
	}
}

// Done reports whether the outcome is known.
func (h *Handle[T]) Done() bool { return h.done() }

// Abort stops the task and every task below it; their deferred calls run
// when the runtime next resumes them. Await then returns ErrClosed (or
// ErrAborted for a completion handle). Aborting a finished task changes
// nothing, and Abort may be called more than once.
func (h *Handle[T]) Abort() {
	var zero T
	err := ErrAborted
	if atomic.LoadUint32(&h.state)&handleTask != 0 {
		err = ErrClosed
	}
	h.complete(zero, err)
	if h.abort != nil {
		h.abort.Abort()
	}
}

// OnDone is a Select case that completes when the outcome is known and
// passes it to f, which may be nil. It panics at the call if h is nil.
func (h *Handle[T]) OnDone(f func(v T, err error)) Case {
	mustHandle(h == nil, "Handle.OnDone")
	return &primCase[result[T], func(T, error)]{p: h, f: f}
}

func (h *Handle[T]) armCase(r *result[T], w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&h.mu, &h.q, w, func() bool {
		if !h.done() {
			return false
		}
		r.v, r.err = h.value()
		return true
	})
}

func (h *Handle[T]) disarmCase(_ *result[T], w *core.Waiter) bool {
	return disarmNotified(&h.mu, &h.q, w, nil)
}

func (h *Handle[T]) fireCase(r *result[T], f func(T, error)) {
	if f != nil {
		f(r.v, r.err)
	}
}

func (h *Handle[T]) describeCase(*result[T]) string { return (*awaitWait[T])(h).BlockedOn() }

// SelectHandles parks until the first of handles completes and returns its
// index and outcome; every handle is aborted when it returns. With no
// handles it returns -1 and ErrClosed. It panics at the call if ctx is nil.
func SelectHandles[T any](ctx Caller, handles ...*Handle[T]) (int, T, error) {
	mustContext(ctx == nil, "SelectHandles")
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
