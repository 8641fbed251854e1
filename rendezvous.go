package simrt

import (
	"sync/atomic"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// An unbuffered channel has no buffer for a value to wait in: a sender and a
// receiver meet, and the one that arrives second completes both sides at
// once. That does not fit the rest of the primitives, where a woken task
// completes its own wait when it runs again (a Select re-arms its cases and
// takes the earliest ready one): a sender that has handed its value over
// cannot take it back because the receiver's Select chose another case
// meanwhile. So a task waiting on an unbuffered channel leaves a syncWaiter,
// and a partner completes it in place, after claiming the waiter's
// selection: the state the waiting Select (or plain Send or Recv) shares
// with everyone who might complete one of its cases. The first claim wins;
// the Select then returns the case that was completed for it, whatever else
// became ready meanwhile.

// selection is the claim state of one waiting Select.
type selection struct {
	state atomic.Uint32
}

// Selection states. Only the owner moves arming to waiting and back; only a
// partner, holding the channel's lock, moves waiting to done.
const (
	// selArming: the owner is looking at its cases (and may complete one
	// itself), so no partner may complete any. A partner that finds a
	// waiter in this state wakes its task, which looks again once it has
	// parked; in the simulator a task never parks halfway through arming,
	// so no partner ever sees it.
	selArming uint32 = iota
	// selWaiting: the owner is parked, or about to; the first partner to
	// claim it completes one of its waiters.
	selWaiting
	// selDone: a partner completed one of its waiters.
	selDone
)

// syncWaiter is a task waiting at an unbuffered channel: to send v, or to
// receive into v. It sits on the channel's queue, guarded by its lock.
type syncWaiter[T any] struct {
	sel  *selection
	task *core.Task
	v    T    // the value offered (send) or taken (receive)
	done bool // a partner completed the wait: v was taken, or delivered
	// the queue the waiter is on, nil when off every queue, and its links
	q          *syncQueue[T]
	prev, next *syncWaiter[T]
}

// syncQueue is a FIFO of waiters at an unbuffered channel.
type syncQueue[T any] struct {
	head, tail *syncWaiter[T]
}

func (q *syncQueue[T]) push(w *syncWaiter[T]) {
	w.q, w.prev, w.next = q, q.tail, nil
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
}

// remove takes w off q if it is still there.
func (q *syncQueue[T]) remove(w *syncWaiter[T]) {
	if w.q != q {
		return
	}
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		q.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		q.tail = w.prev
	}
	w.q, w.prev, w.next = nil, nil, nil
}

// claim takes off q and returns the first waiter whose selection it could
// claim, skipping the caller's own (own; nil for a plain Send or Recv). A
// waiter still arming is woken to look again and left in place; one whose
// selection a partner already claimed through another case is left for its
// task to take off. The caller completes the returned waiter (v, done) and
// wakes its task, all before it releases the channel's lock.
func (q *syncQueue[T]) claim(own *selection) *syncWaiter[T] {
	for w := q.head; w != nil; w = w.next {
		if w.sel == own {
			continue
		}
		if w.sel.state.CompareAndSwap(selWaiting, selDone) {
			q.remove(w)
			return w
		}
		if w.sel.state.Load() == selArming {
			w.task.Unpark()
		}
	}
	return nil
}

// wakeAll takes every waiter off q and wakes its task, without completing
// it: the task finds out what happened (the channel closed) when it looks
// again.
func (q *syncQueue[T]) wakeAll() {
	for w := q.head; w != nil; w = q.head {
		q.remove(w)
		w.task.Unpark()
	}
}

// rendezvous holds the waiters of an unbuffered channel.
type rendezvous[T any] struct {
	sendq, recvq syncQueue[T]
	// spare is a plain wait's waiter that is no longer in use (nothing
	// refers to a waiter once it is off the queues and its wait has
	// returned), kept so that steady traffic allocates nothing.
	spare *syncWait[T]
}

// getWait returns a reset waiter for a plain Send or Recv by t. Called
// with mu held.
func (r *rendezvous[T]) getWait(t *core.Task) *syncWait[T] {
	sw := r.spare
	if sw == nil {
		sw = new(syncWait[T])
	} else {
		r.spare = nil
		sw.sel.state.Store(selArming)
	}
	sw.w = syncWaiter[T]{sel: &sw.sel, task: t}
	return sw
}

// putWait keeps sw, whose wait has returned, for the next one. Called with
// mu held.
func (r *rendezvous[T]) putWait(sw *syncWait[T]) {
	var zero T
	sw.w.v, sw.w.task = zero, nil
	r.spare = sw
}

// syncWait is the waiter and selection of a plain Send or Recv, in one
// allocation.
type syncWait[T any] struct {
	sel selection
	w   syncWaiter[T]
}

// trySendSync hands v to a waiting receiver. Called with mu held.
func (c *Chan[T]) trySendSync(v T) bool {
	if c.closed {
		return false
	}
	if r := c.rv.recvq.claim(nil); r != nil {
		r.v, r.done = v, true
		r.task.Unpark()
		return true
	}
	return false
}

// tryRecvSync takes the value of a waiting sender. Called with mu held.
func (c *Chan[T]) tryRecvSync() (v T, ok bool) {
	if s := c.rv.sendq.claim(nil); s != nil {
		v, s.done = s.v, true
		s.task.Unpark()
		return v, true
	}
	return v, false
}

func (c *Chan[T]) sendSync(ctx rtapi.Plumbing, v T) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.trySendSync(v) {
		return nil
	}
	sw := c.rv.getWait(ctx.CurrentTask())
	defer c.rv.putWait(sw) // runs before the Unlock above, mu held
	sw.w.v = v
	for {
		if c.waitSync(&sw.w, &c.rv.sendq, (*chanSend[T])(c)) {
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

func (c *Chan[T]) recvSync(ctx rtapi.Plumbing) (v T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok = c.tryRecvSync(); ok || c.closed {
		return v, ok
	}
	sw := c.rv.getWait(ctx.CurrentTask())
	defer c.rv.putWait(sw) // runs before the Unlock above, mu held
	for {
		if c.waitSync(&sw.w, &c.rv.recvq, (*chanRecv[T])(c)) {
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
func (c *Chan[T]) waitSync(w *syncWaiter[T], q *syncQueue[T], on core.Blocker) bool {
	c.mu.Bind(w.task)
	q.push(w)
	w.sel.state.Store(selWaiting) // under mu: no partner sees w arming
	c.mu.Unlock()
	parked := false
	defer func() {
		if !parked { // unwinding: no partner may claim w any more
			w.sel.state.Store(selDone)
			c.mu.Lock()
			q.remove(w)
		}
	}()
	w.task.ParkOn(on)
	parked = true
	claimed := !w.sel.state.CompareAndSwap(selWaiting, selArming)
	c.mu.Lock()
	q.remove(w)
	return claimed && w.done
}

// syncCase is a Select case on an unbuffered channel: Select arms it with
// its selection, and a partner may complete it while the Select waits.
type syncCase interface {
	Case
	// armSync completes the case if a partner is waiting (or the channel
	// is closed) and reports true; otherwise it queues a waiter of sel.
	armSync(w *core.Waiter, sel *selection) bool
	// disarmSync takes the waiter off its queue and reports whether a
	// partner completed it.
	disarmSync() bool
}

const errSyncArm = "simrt: a case on an unbuffered channel armed outside Select"

type syncRecvCase[T any] struct {
	c  *Chan[T]
	f  func(T, bool)
	w  syncWaiter[T]
	v  T
	ok bool
}

func (rc *syncRecvCase[T]) armSync(w *core.Waiter, sel *selection) bool {
	c := rc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(w.Task)
	if s := c.rv.sendq.claim(sel); s != nil {
		rc.v, rc.ok, s.done = s.v, true, true
		s.task.Unpark()
		return true
	}
	if c.closed {
		var zero T
		rc.v, rc.ok = zero, false
		return true
	}
	rc.w = syncWaiter[T]{sel: sel, task: w.Task}
	c.rv.recvq.push(&rc.w)
	return false
}

func (rc *syncRecvCase[T]) disarmSync() bool {
	c := rc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rv.recvq.remove(&rc.w)
	if rc.w.done {
		rc.v, rc.ok = rc.w.v, true
		return true
	}
	return false
}

// arm and disarm are never called: Select arms a syncCase with armSync.
func (rc *syncRecvCase[T]) arm(*core.Waiter) bool { panic(errSyncArm) }
func (rc *syncRecvCase[T]) disarm(*core.Waiter)   { panic(errSyncArm) }

func (rc *syncRecvCase[T]) fire() {
	if rc.f != nil {
		rc.f(rc.v, rc.ok)
	}
}

func (rc *syncRecvCase[T]) release() {}

type syncSendCase[T any] struct {
	c   *Chan[T]
	v   T
	f   func(error)
	w   syncWaiter[T]
	err error
}

func (sc *syncSendCase[T]) armSync(w *core.Waiter, sel *selection) bool {
	c := sc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(w.Task)
	if c.closed {
		sc.err = ErrClosed
		return true
	}
	if r := c.rv.recvq.claim(sel); r != nil {
		r.v, r.done = sc.v, true
		r.task.Unpark()
		sc.err = nil
		return true
	}
	sc.w = syncWaiter[T]{sel: sel, task: w.Task, v: sc.v}
	c.rv.sendq.push(&sc.w)
	return false
}

func (sc *syncSendCase[T]) disarmSync() bool {
	c := sc.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rv.sendq.remove(&sc.w)
	if sc.w.done {
		sc.err = nil
		return true
	}
	return false
}

func (sc *syncSendCase[T]) arm(*core.Waiter) bool { panic(errSyncArm) }
func (sc *syncSendCase[T]) disarm(*core.Waiter)   { panic(errSyncArm) }

func (sc *syncSendCase[T]) fire() {
	if sc.f != nil {
		sc.f(sc.err)
	}
}

func (sc *syncSendCase[T]) release() {}
