package simrt

import (
	"unsafe"

	"github.com/simrt/simrt/internal/core"
)

// An unbuffered channel has no buffer for a value to wait in: a sender and a
// receiver meet, and the one that arrives second completes both sides at
// once. That does not fit the rest of the primitives, where a woken task
// completes its own wait when it runs again (a Select re-arms its cases and
// takes the earliest ready one): a sender that has handed its value over
// cannot take it back because the receiver's Select chose another case
// meanwhile. So a task waiting on an unbuffered channel leaves a syncWaiter
// on the channel's queue, and a partner completes it in place, after
// claiming the waiter's selection (see core.WaitQueue.Claim): the state the
// waiting Select (or plain Send or Recv) shares with everyone who might
// complete one of its cases. The first claim wins; the Select then returns
// the case that was completed for it, whatever else became ready meanwhile.

// syncWaiter is a task waiting at a channel to be completed in place: to
// send v, or to receive into v. It sits on one of the channel's queues,
// guarded by its lock. Its Waiter is its first field, so that the
// *core.Waiter a queue holds is the syncWaiter's address (see syncOf).
type syncWaiter[T any] struct {
	core.Waiter
	v T // the value offered (send) or taken (receive)
}

// syncOf returns the syncWaiter whose Waiter w is. Every waiter on the
// queues of a channel that completes its waiters in place is one.
func syncOf[T any](w *core.Waiter) *syncWaiter[T] {
	return (*syncWaiter[T])(unsafe.Pointer(w))
}

// reset makes w an unqueued waiter of t in sel offering v.
func (w *syncWaiter[T]) reset(t *core.Task, sel *core.Selection, v T) {
	w.Reset(t, sel)
	w.v = v
}

// rendezvous is what an unbuffered channel keeps besides its queues.
type rendezvous[T any] struct {
	// spare is a plain wait's waiter that is no longer in use (nothing
	// refers to a waiter once it is off the queues and its wait has
	// returned), kept so that steady traffic allocates nothing.
	spare *syncWait[T]
}

// getWait returns a reset waiter for a plain Send or Recv by t. Called
// with mu held.
func (r *rendezvous[T]) getWait(t *core.Task, v T) *syncWait[T] {
	sw := r.spare
	if sw == nil {
		sw = new(syncWait[T])
	} else {
		r.spare = nil
		sw.sel.Arm()
	}
	sw.w.reset(t, &sw.sel, v)
	return sw
}

// putWait keeps sw, whose wait has returned, for the next one. Called with
// mu held.
func (r *rendezvous[T]) putWait(sw *syncWait[T]) {
	var zero T
	sw.w.v, sw.w.Task = zero, nil
	r.spare = sw
}

// syncWait is the waiter and selection of a plain Send or Recv, in one
// allocation.
type syncWait[T any] struct {
	sel core.Selection
	w   syncWaiter[T]
}

// handTo completes the claimed waiter r of a receiver with v and wakes its
// task. Called with mu held.
func handTo[T any](r *core.Waiter, v T) {
	syncOf[T](r).v = v
	r.Done.Store(true)
	r.Task.Unpark()
}

// takeFrom completes the claimed waiter s of a sender, returning its value,
// and wakes its task. Called with mu held.
func takeFrom[T any](s *core.Waiter) T {
	v := syncOf[T](s).v
	s.Done.Store(true)
	s.Task.Unpark()
	return v
}

// trySendSync hands v to a waiting receiver. Called with mu held.
func (c *Chan[T]) trySendSync(v T) bool {
	if c.closed {
		return false
	}
	if r := c.recvq.Claim(nil); r != nil {
		handTo(r, v)
		return true
	}
	return false
}

// tryRecvSync takes the value of a waiting sender. Called with mu held.
func (c *Chan[T]) tryRecvSync() (v T, ok bool) {
	if s := c.sendq.Claim(nil); s != nil {
		return takeFrom[T](s), true
	}
	return v, false
}

func (c *Chan[T]) sendSync(ctx Runtime, v T) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.trySendSync(v) {
		return nil
	}
	sw := c.rv.getWait(ctx.CurrentTask(), v)
	defer c.rv.putWait(sw) // runs before the Unlock above, mu held
	for {
		if c.waitSync(&sw.w, &c.sendq, (*chanSend[T])(c)) {
			return nil // a receiver took v
		}
		if c.closed {
			return ErrClosed
		}
		if c.trySendSync(v) {
			return nil
		}
	}
}

func (c *Chan[T]) recvSync(ctx Runtime) (v T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok = c.tryRecvSync(); ok || c.closed {
		return v, ok
	}
	sw := c.rv.getWait(ctx.CurrentTask(), v)
	defer c.rv.putWait(sw) // runs before the Unlock above, mu held
	for {
		if c.waitSync(&sw.w, &c.recvq, (*chanRecv[T])(c)) {
			return sw.w.v, true // a sender delivered
		}
		if v, ok = c.tryRecvSync(); ok || c.closed {
			return v, ok
		}
	}
}

// waitSync queues w on q and parks until a partner completes it (true) or
// the task is woken for another reason (false: look again). It is called
// and returns with mu held. If the park unwinds, w is taken off q; a value a
// receiver had already been given is then lost with the task, as if the
// task had ended right after its Recv returned. on says what the task
// waits on, for failure reports.
func (c *Chan[T]) waitSync(w *syncWaiter[T], q *core.WaitQueue, on core.Blocker) bool {
	c.mu.Bind(w.Task)
	q.Push(&w.Waiter)
	w.Sel.Wait() // under mu: no partner sees w arming
	c.mu.Unlock()
	parked := false
	defer func() {
		if !parked { // unwinding: no partner may claim w any more
			w.Sel.Close()
			c.mu.Lock()
			q.Remove(&w.Waiter)
		}
	}()
	w.Task.ParkOn(on)
	parked = true
	claimed := w.Sel.Reclaim()
	c.mu.Lock()
	q.Remove(&w.Waiter)
	return claimed && w.Done.Load()
}

// armSyncRecv arms a receive case on an unbuffered channel: it takes the
// value of a waiting sender, or reports the channel closed, or queues the
// case's waiter of sel.
func (c *Chan[T]) armSyncRecv(s *recvState[T], t *core.Task, sel *core.Selection) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(t)
	if p := c.sendq.Claim(sel); p != nil {
		s.v, s.ok = takeFrom[T](p), true
		return true
	}
	if c.closed {
		var zero T
		s.v, s.ok = zero, false
		return true
	}
	var zero T
	s.w.reset(t, sel, zero)
	c.recvq.Push(&s.w.Waiter)
	return false
}

// disarmSyncRecv takes a receive case's waiter off the queue and reports
// whether a sender completed it.
func (c *Chan[T]) disarmSyncRecv(s *recvState[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recvq.Remove(&s.w.Waiter)
	if s.w.Done.Load() {
		s.v, s.ok = s.w.v, true
		return true
	}
	return false
}

// armSyncSend arms a send case on an unbuffered channel: it reports the
// channel closed, or hands the value to a waiting receiver, or queues the
// case's waiter of sel.
func (c *Chan[T]) armSyncSend(s *sendState[T], t *core.Task, sel *core.Selection) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(t)
	if c.closed {
		s.err = ErrClosed
		return true
	}
	if r := c.recvq.Claim(sel); r != nil {
		handTo(r, s.v)
		s.err = nil
		return true
	}
	s.w.reset(t, sel, s.v)
	c.sendq.Push(&s.w.Waiter)
	return false
}

// disarmSyncSend takes a send case's waiter off the queue and reports
// whether a receiver completed it.
func (c *Chan[T]) disarmSyncSend(s *sendState[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendq.Remove(&s.w.Waiter)
	if s.w.Done.Load() {
		s.err = nil
		return true
	}
	return false
}
