package simrt

import (
	"sync/atomic"

	"github.com/simrt/simrt/internal/core"
)

// Once runs a function exactly once, like sync.Once, but a concurrent
// caller parks its task instead of blocking the thread, so it is safe
// inside the simulator. The zero value is ready to use.
type Once struct {
	done    atomic.Bool
	mu      core.Lock
	running bool
	q       core.WaitQueue
}

// Do calls f if and only if Do is being called for the first time on o.
// Every other call parks until that first f has ended and then returns. As
// with sync.Once, f ending by a panic counts as done (the panic goes on up
// the caller's stack), and so does f being unwound because its task was
// aborted or its Timeout ran out. A call of Do from within f on the same
// Once never returns. Unlike sync.Once, whose Do(nil) fails only as a nil
// dereference, Do panics at the call, leaving o as it was, if ctx or f is
// nil.
func (o *Once) Do(ctx Caller, f func()) {
	mustContext(ctx == nil, "Once.Do")
	mustFunc(f == nil, "Once.Do")
	o.mu.Enter(ctx.CurrentTask())
	if o.done.Load() {
		return
	}
	o.mu.Lock()
	if o.done.Load() {
		o.mu.Unlock()
		return
	}
	if o.running {
		waitUntilOn(ctx, &o.mu, &o.q, onceWait, nil, o.done.Load)
		o.mu.Unlock()
		return
	}
	o.running = true
	o.mu.Unlock()
	defer o.finish()
	f()
}

// finish marks o done and releases the callers parked in Do.
func (o *Once) finish() {
	var buf [4]*core.Task
	o.mu.Lock()
	o.done.Store(true)
	woken := o.q.TakeAll(buf[:0])
	o.mu.Unlock()
	for _, t := range woken {
		t.Unpark()
	}
}
