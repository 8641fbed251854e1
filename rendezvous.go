package simrt

import (
	"unsafe"

	"github.com/simrt/simrt/internal/core"
)

// A receiver parked on a channel is completed in place by the sender that
// arrives: the sender claims the receiver's waiter (see
// core.WaitQueue.Claim), hands it the value and wakes it; the woken
// receiver has nothing left to do, and takes no lock. A Select's waiters
// share a selection, the state the first claim wins; a Select then returns
// the case that was completed for it, whatever else became ready
// meanwhile. A plain Recv or Send has one waiter and no selection: taking
// it off the queue under the channel's lock is the claim (see parkPlain).
//
// An unbuffered channel has no buffer for a value to wait in, so its
// senders wait the same way: the receiver that arrives takes the value of
// a parked sender and completes it. A sender that has handed its value over
// cannot take it back because the receiver's Select chose another case
// meanwhile; claiming the selection first is what makes that impossible.
//
// A receiver that unwinds (aborted) at the moment a value is handed to it
// gives the value back (handBack): to the next parked receiver, or to the
// head of a buffered channel's queue. Senders on a full buffered channel
// are notified and look again (see Send).

// syncWaiter is a task waiting at a channel to be completed in place: to
// send v, or to receive into v. It sits on one of the channel's queues,
// guarded by its lock. Its Waiter is its first field, so that the
// *core.Waiter a queue holds is the syncWaiter's address (see syncOf).
type syncWaiter[T any] struct {
	core.Waiter
	v T // the value offered (send) or taken (receive)
}

// syncOf returns the syncWaiter whose Waiter w is. Every waiter on the
// receive queue of a channel, and on the send queue of an unbuffered one,
// is one.
func syncOf[T any](w *core.Waiter) *syncWaiter[T] {
	return (*syncWaiter[T])(unsafe.Pointer(w))
}

// getWait returns a reset waiter for a plain Send or Recv by t, offering v.
// Called with mu held. A waiter is kept in spare once its wait has
// returned (nothing refers to it then), so that steady traffic allocates
// nothing; putWait stores it without the lock, which a woken receiver does
// not take again. A plain wait has no selection (see parkPlain).
func (c *Chan[T]) getWait(t *core.Task, v T) *syncWaiter[T] {
	sw := c.spare.Load()
	if sw == nil {
		sw = new(syncWaiter[T])
	} else {
		c.spare.Store(nil)
	}
	sw.Recycle(t, nil) // no one else reaches sw: see putWait
	sw.v = v
	return sw
}

// putWait keeps sw, whose wait has returned, for the next one.
func (c *Chan[T]) putWait(sw *syncWaiter[T]) {
	var zero T
	sw.v, sw.Task = zero, nil
	c.spare.Store(sw)
}

// handTo completes the claimed waiter r of a receiver with v and wakes its
// task. Called with mu held. Once r is Done its task may return without the
// lock and reuse r, so nothing of r is touched after that (the task may be
// woken after it has moved on: a spurious wake, which every Park caller
// tolerates).
func handTo[T any](r *core.Waiter, v T) {
	t := r.Task
	syncOf[T](r).v = v
	r.Done.Store(true)
	t.Unpark()
}

// takeFrom completes the claimed waiter s of a sender, returning its value,
// and wakes its task. Called with mu held; as in handTo, s is not touched
// once Done.
func takeFrom[T any](s *core.Waiter) T {
	t := s.Task
	v := syncOf[T](s).v
	s.Done.Store(true)
	t.Unpark()
	return v
}

// handBack gives back v, a value handed to a receiver that unwound instead
// of taking it: to the next parked receiver, else to the head of the
// buffer (it was the oldest value; the buffer may then hold one more than
// its capacity until a receiver takes it). On an unbuffered channel with
// no receiver parked the value is lost with the receiver, as if its task
// had ended right after its Recv returned: its sender has already
// returned. Called with mu held.
func (c *Chan[T]) handBack(v T) {
	if r := c.recvq.Claim(nil); r != nil {
		handTo(r, v)
		return
	}
	if !c.unbuffered {
		c.pushFront(v)
	}
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

// tryRecvFor takes a value, if there is one, for a receive of selection
// sel (nil for a plain Recv), from the buffer or from a parked sender of
// an unbuffered channel. done reports whether the receive is over: a value
// was taken, or the channel is closed and drained. Called with mu held.
func (c *Chan[T]) tryRecvFor(sel *core.Selection) (v T, ok, done bool) {
	if !c.unbuffered {
		return c.tryRecv()
	}
	if s := c.sendq.Claim(sel); s != nil {
		return takeFrom[T](s), true, true
	}
	return v, false, c.closed
}

// tryRecvSync takes the value of a waiting sender. Called with mu held.
func (c *Chan[T]) tryRecvSync() (v T, ok bool) {
	v, ok, _ = c.tryRecvFor(nil)
	return v, ok
}

// sendSync is Send on an unbuffered channel, by task t.
func (c *Chan[T]) sendSync(t *core.Task, v T) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	if c.trySendSync(v) {
		c.mu.Unlock()
		return nil
	}
	sw := c.getWait(t, v)
	for !c.parkPlain(sw, &c.sendq, (*chanSend[T])(c)) {
		// Woken without a receiver (mu held, sw off the queue).
		if c.closed || c.trySendSync(v) {
			err := error(nil)
			if c.closed {
				err = ErrClosed
			}
			c.putWait(sw)
			c.mu.Unlock()
			return err
		}
	}
	c.putWait(sw)
	return nil // a receiver took v
}

// recvSync is Recv on an unbuffered channel, by task t.
func (c *Chan[T]) recvSync(t *core.Task) (v T, ok bool) {
	c.mu.Lock()
	if v, ok, done := c.tryRecvFor(nil); done {
		c.mu.Unlock()
		return v, ok
	}
	return c.recvParked(t)
}

// recvParked parks t on the receive queue until a sender hands it a value,
// or it finds the receive over when it looks again after another wake-up
// (the channel closed). Called with mu held; returns with mu released.
func (c *Chan[T]) recvParked(t *core.Task) (v T, ok bool) {
	sw := c.getWait(t, v)
	for !c.parkPlain(sw, &c.recvq, (*chanRecv[T])(c)) {
		// Woken without a value (mu held, sw off the queue).
		var done bool
		if v, ok, done = c.tryRecvFor(nil); done {
			c.putWait(sw)
			c.mu.Unlock()
			return v, ok
		}
	}
	v = sw.v // a sender delivered: no lock needed
	c.putWait(sw)
	return v, true
}

// parkPlain queues w, the waiter of a plain Send or Recv, on q and parks
// until a partner completes it in place (true, with mu released) or the
// task is woken for another reason and finds, under mu, that nobody did
// (false: w is off q and mu is held, for the caller to look again). It is
// called with mu held. If the park unwinds, w is taken off q and a value a
// sender had already handed it is given back (see handBack). on says what
// the task waits on, for failure reports.
//
// A plain wait has no selection to claim (w.Sel is nil): its one waiter is
// completed by whoever takes it off q, which only happens under mu, so a
// woken task that does not find w Done looks again under mu, where Done
// is final.
func (c *Chan[T]) parkPlain(w *syncWaiter[T], q *core.WaitQueue, on core.Blocker) (completed bool) {
	c.mu.Bind(w.Task)
	q.Push(&w.Waiter)
	c.mu.Unlock()
	parked := false
	defer func() {
		if !parked { // unwinding: take w off q, where no partner can reach it
			c.mu.Lock()
			q.Remove(&w.Waiter)
			done := w.Done.Load()
			if done && !w.Task.IsAborted() {
				// A Timeout ran out while a partner completed w (between
				// the push and the park): the operation has happened, so
				// it wins the tie and returns; the Timeout's function
				// unwinds at its next park.
				c.mu.Unlock()
				if v := recover(); !isDeadline(v) {
					panic(v)
				}
				completed = true
				return
			}
			if q == &c.recvq && done {
				c.handBack(w.v)
			}
			c.mu.Unlock()
		}
	}()
	if h := beforePark; h != nil {
		h()
	}
	w.Task.ParkOn(on)
	parked = true
	if w.Done.Load() {
		return true
	}
	if h := beforeRecheck; h != nil {
		h()
	}
	c.mu.Lock() // a partner that took w off q completes it before it unlocks
	if w.Done.Load() {
		c.mu.Unlock()
		return true
	}
	q.Remove(&w.Waiter)
	return false
}

// beforePark, when not nil, is called by parkPlain when it has queued its
// waiter and released the lock, and by a Select when it has opened its
// selection to partners, just before the task parks: a partner that
// completes the wait there, after the task's Timeout ran out, is the tie
// the unwinding decides. Only tests set it, as beforeRecheck.
var beforePark func()

// beforeRecheck, when not nil, is called by parkPlain when its task has
// woken and found its waiter not Done, just before it takes the lock to
// look again: a partner that completes the waiter there is the window the
// look under the lock exists for. Only tests set it (before the runtime
// starts, cleared after it has stopped), to force that window.
var beforeRecheck func()

// armRecv arms a receive case: it takes a value (from the buffer, or from
// a parked sender of an unbuffered channel), or reports the channel closed
// and drained, or queues w, the case's waiter of sel (already reset), for
// a sender to complete in place. w.v is s.v (see primCase).
func (c *Chan[T]) armRecv(s *recvState[T], w *syncWaiter[T], sel *core.Selection) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(w.Task)
	if v, ok, done := c.tryRecvFor(sel); done {
		s.v, s.ok = v, ok
		return true
	}
	var zero T
	w.v = zero
	c.recvq.Push(&w.Waiter)
	return false
}

// disarmRecv takes a receive case's waiter w off the queue and reports
// whether a sender completed it (having stored the value in w.v, which is
// s.v).
func (c *Chan[T]) disarmRecv(s *recvState[T], w *syncWaiter[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recvq.Remove(&w.Waiter)
	if w.Done.Load() {
		s.ok = true
		return true
	}
	return false
}

// armSyncSend arms a send case on an unbuffered channel: it reports the
// channel closed, or hands the value to a waiting receiver, or queues w,
// the case's waiter of sel (already reset; w.v is s.v, the value offered).
func (c *Chan[T]) armSyncSend(s *sendState[T], w *syncWaiter[T], sel *core.Selection) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(w.Task)
	if c.closed {
		s.err = ErrClosed
		return true
	}
	if r := c.recvq.Claim(sel); r != nil {
		handTo(r, s.v)
		s.err = nil
		return true
	}
	c.sendq.Push(&w.Waiter)
	return false
}

// disarmSyncSend takes a send case's waiter w off the queue and reports
// whether a receiver completed it.
func (c *Chan[T]) disarmSyncSend(w *syncWaiter[T]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendq.Remove(&w.Waiter)
	return w.Done.Load()
}
