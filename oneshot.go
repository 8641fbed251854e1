package simrt

import (
	"github.com/simrt/simrt/internal/core"
)

// Oneshot carries at most one value from a sender to a receiver. The zero
// value is ready to use.
type Oneshot[T any] struct {
	mu     core.Lock
	sent   bool
	closed bool
	v      T
	q      core.WaitQueue
}

// NewOneshot returns an empty oneshot.
func NewOneshot[T any]() *Oneshot[T] { return &Oneshot[T]{} }

// Send delivers v and reports true, or reports false if a value was already
// sent or the oneshot was closed.
func (o *Oneshot[T]) Send(v T) bool {
	ok := o.sendOp(v)
	o.mu.Point()
	return ok
}

func (o *Oneshot[T]) sendOp(v T) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sent || o.closed {
		return false
	}
	o.sent, o.v = true, v
	o.q.NotifyAll()
	return true
}

// Close marks the sender as gone: a receiver still waiting gets ErrClosed.
// Closing after Send does nothing.
func (o *Oneshot[T]) Close() {
	o.closeOp()
	o.mu.Point()
}

func (o *Oneshot[T]) closeOp() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sent || o.closed {
		return
	}
	o.closed = true
	o.q.NotifyAll()
}

func (o *Oneshot[T]) doneLocked() bool { return o.sent || o.closed }

func (o *Oneshot[T]) resultLocked() (T, error) {
	if o.sent {
		return o.v, nil
	}
	var zero T
	return zero, ErrClosed
}

// Recv parks until a value is sent (and returns it) or the oneshot is
// closed (ErrClosed). Any number of receivers see the same value.
// It panics at the call if ctx is nil.
func (o *Oneshot[T]) Recv(ctx Caller) (T, error) {
	mustContext(ctx == nil, "Oneshot.Recv")
	o.mu.Enter(ctx.CurrentTask())
	o.mu.Lock()
	if o.doneLocked() {
		defer o.mu.Unlock()
		return o.resultLocked()
	}
	waitUntilOn(ctx, &o.mu, &o.q, oneshotWait, nil, o.doneLocked)
	v, err := o.resultLocked()
	o.mu.Unlock()
	return v, err
}

// TryRecv returns the value without parking; ok is false while nothing has
// been sent.
func (o *Oneshot[T]) TryRecv() (v T, ok bool) {
	v, ok = o.tryRecvOp()
	o.mu.Point()
	return v, ok
}

func (o *Oneshot[T]) tryRecvOp() (v T, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.v, o.sent
}

// OnRecv is a Select case that completes when a value is sent or the
// oneshot closed, and passes the outcome to f, which may be nil.
func (o *Oneshot[T]) OnRecv(f func(v T, err error)) Case {
	return &primCase[result[T], func(T, error)]{p: o, f: f}
}

// result is the outcome a case on a Oneshot or a Handle passes on.
type result[T any] struct {
	v   T
	err error
}

func (o *Oneshot[T]) armCase(r *result[T], w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&o.mu, &o.q, w, func() bool {
		if !o.doneLocked() {
			return false
		}
		r.v, r.err = o.resultLocked()
		return true
	})
}

func (o *Oneshot[T]) disarmCase(_ *result[T], w *core.Waiter) bool {
	return disarmNotified(&o.mu, &o.q, w, nil)
}

func (o *Oneshot[T]) fireCase(r *result[T], f func(T, error)) {
	if f != nil {
		f(r.v, r.err)
	}
}

func (o *Oneshot[T]) describeCase(*result[T]) string { return oneshotWait.BlockedOn() }
