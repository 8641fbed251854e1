package core

import (
	"sync/atomic"
	"unsafe"
)

// Waiter is one task waiting on one primitive. A task blocked in a Select
// has one Waiter per case. Waiters live on a WaitQueue guarded by the
// primitive's lock.
//
// A waiter is woken in one of two ways. A notifier (NotifyOne, NotifyAll)
// pops it, sets Notified and wakes its task, which then looks at the
// primitive again. A partner (Claim) completes it in place instead: it
// claims the waiter's Selection, hands over or takes the value, sets Done
// and wakes the task, which then has nothing left to do. On a queue whose
// waiters are claimed, a waiter has a Selection unless it is the only
// waiter of its wait (a plain Send or Recv; see Claim).
type Waiter struct {
	Task *Task
	// Sel is the claim state the waiter shares with its task's other
	// waiters of the same wait (every case of one Select), for a waiter a
	// partner may complete in place; nil otherwise, and for the one waiter
	// of a plain wait that a partner completes in place (see Claim).
	Sel *Selection
	// Notified is set when a notifier popped this waiter and woke its task.
	Notified bool
	// Done is set by a partner that completed the waiter in place, after
	// it handed over or took the value and before it wakes the task.
	Done atomic.Bool
	q    *WaitQueue
	prev *Waiter
	next *Waiter
	// blocker, in the task's reusable waiter only, is what the task is
	// parked on, whatever the wait (see ParkOn): kept here rather than in
	// Task so that a production task stays within its size class.
	blocker Blocker
}

// Waiter returns the task's reusable waiter for single-primitive waits,
// reset and ready to be queued. Only the task itself may call it.
func (t *Task) Waiter() *Waiter {
	w := t.single
	if w == nil { // the runtime supplied no storage (see SetWaiter)
		w = new(Waiter)
		t.single = w
	}
	w.Reset(t, nil)
	return w
}

// Reset makes w an unqueued waiter of t with selection sel (nil for a
// waiter that is only ever notified).
func (w *Waiter) Reset(t *Task, sel *Selection) {
	w.Task, w.Sel, w.Notified = t, sel, false
	w.Done.Store(false)
	w.q, w.prev, w.next, w.blocker = nil, nil, nil, nil
}

// Recycle is Reset followed by sel.Arm (sel may be nil) for a waiter and
// selection that no other goroutine can reach without the primitive's lock,
// which the caller holds: w is on no queue, the partner that completed
// its last wait (under that lock) no longer touches it, and its owner's
// last lock-free look (Reclaim, Done) happened before w was handed on to
// the caller. The two atomic words are then written with plain stores,
// which order nothing and cost no locked instruction; the lock's release
// publishes them with the rest.
func (w *Waiter) Recycle(t *Task, sel *Selection) {
	w.Task, w.Sel, w.Notified = t, sel, false
	*(*uint32)(unsafe.Pointer(&w.Done)) = 0
	w.q, w.prev, w.next, w.blocker = nil, nil, nil, nil
	if sel != nil {
		*(*uint32)(unsafe.Pointer(&sel.state)) = selArming
	}
}

// Recycle writes an atomic.Bool and an atomic.Uint32 as their one uint32.
var (
	_ [unsafe.Sizeof(atomic.Bool{}) - 4]struct{}
	_ [4 - unsafe.Sizeof(atomic.Bool{})]struct{}
	_ [unsafe.Sizeof(atomic.Uint32{}) - 4]struct{}
	_ [4 - unsafe.Sizeof(atomic.Uint32{})]struct{}
)

// WaitQueue is a FIFO of waiters. The zero value is empty. It is not safe
// for concurrent use: the primitive that owns it holds its own lock.
type WaitQueue struct {
	head, tail *Waiter
}

// Empty reports whether no waiter is queued.
func (q *WaitQueue) Empty() bool { return q.head == nil }

// Push queues w at the back.
func (q *WaitQueue) Push(w *Waiter) {
	w.q = q
	w.prev = q.tail
	w.next = nil
	if q.tail != nil {
		q.tail.next = w
	} else {
		q.head = w
	}
	q.tail = w
}

// PushFront queues w at the front (a LIFO waiter: the Go runtime queues a
// sync.Mutex waiter that has waited before ahead of the others).
func (q *WaitQueue) PushFront(w *Waiter) {
	w.q = q
	w.prev = nil
	w.next = q.head
	if q.head != nil {
		q.head.prev = w
	} else {
		q.tail = w
	}
	q.head = w
}

// Remove takes w off the queue if it is still queued there.
func (q *WaitQueue) Remove(w *Waiter) {
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

// NotifyOne pops the first waiter, marks it notified and wakes its task. It
// reports whether there was one.
func (q *WaitQueue) NotifyOne() bool {
	w := q.head
	if w == nil {
		return false
	}
	q.Remove(w)
	w.MarkNotified()
	w.Task.Unpark()
	return true
}

// MarkNotified sets w.Notified and, for a waiter with a selection, closes
// the selection to partners: the task has been woken to look again, as by
// the first of its cases to become ready, and a partner must not complete
// another of its waiters in place meanwhile (it passes the task by, as
// Go's runtime passes by a select that another case already woke). The
// caller, holding the primitive's lock, wakes the task.
func (w *Waiter) MarkNotified() {
	w.Notified = true
	if w.Sel != nil {
		w.Sel.state.CompareAndSwap(selWaiting, selNotified)
	}
}

// NotifyAll wakes every queued waiter.
func (q *WaitQueue) NotifyAll() {
	for q.NotifyOne() {
	}
}

// TakeAll pops every waiter, marks each notified and appends its task to
// tasks, in queue order, for the caller to Unpark once it has released the
// primitive's lock: a woken task then does not find the lock still held by
// its waker. A waiter's memory may be reused as soon as the lock is
// released (its task may wake for another reason and wait again), so only
// the tasks are kept. An Unpark that reaches a task after it has moved on
// is a spurious wake, which every Park caller tolerates.
func (q *WaitQueue) TakeAll(tasks []*Task) []*Task {
	for w := q.head; w != nil; w = q.head {
		q.Remove(w)
		w.MarkNotified()
		tasks = append(tasks, w.Task)
	}
	return tasks
}

// Claim takes off q and returns the first waiter it could claim: a
// waiter of a plain wait (Sel nil), which taking it off q under the
// primitive's lock claims, or one whose selection it could claim, skipping
// those of own (the caller's own selection, so that a Select does not
// complete itself; nil for none). A waiter whose task is still arming is
// woken to look again and left in place; one whose selection was claimed
// through another of its waiters, or notified, is left for its task to
// take off. The caller completes the returned waiter (the value, then
// Done) and wakes its task. The task of a plain waiter that wakes before
// its waiter is Done looks again under the lock, where Done is final.
func (q *WaitQueue) Claim(own *Selection) *Waiter {
	for w := q.head; w != nil; w = w.next {
		if w.Sel == nil { // a plain wait: nobody else can complete it
			q.Remove(w)
			return w
		}
		if w.Sel == own {
			continue
		}
		if w.Sel.state.CompareAndSwap(selWaiting, selDone) {
			q.Remove(w)
			return w
		}
		if w.Sel.state.Load() == selArming {
			w.Task.Unpark()
		}
	}
	return nil
}

// Wait parks w's task on q, the wait queue of a primitive guarded by mu,
// with mu released: it is called with mu held and returns with mu held and
// w off q, unnotified. It binds mu to the task first (see Lock.Bind). on
// says what the task waits on, for failure reports (nil says nothing).
// If the park unwinds (an abort, a Timeout), it does as ParkQueued does.
func Wait(mu *Lock, w *Waiter, q *WaitQueue, on Blocker, forward func()) {
	mu.Bind(w.Task)
	q.Push(w)
	mu.Unlock()
	ParkQueued(mu, w, q, on, forward)
	mu.Lock()
	q.Remove(w)
	w.Notified = false
}

// ParkQueued parks w's task, whose waiter w is already on q, the wait
// queue of a primitive guarded by mu, which the caller has released; on
// says what the task waits on (see Wait). It returns with mu released and
// w possibly still on q, for a caller that looks at the primitive itself.
// If the park unwinds (an abort, a Timeout), w is withdrawn from q under
// mu (see Withdraw), mu is left released, and the unwinding goes on.
func ParkQueued(mu *Lock, w *Waiter, q *WaitQueue, on Blocker, forward func()) {
	ok := false
	defer func() {
		if !ok {
			mu.Lock()
			q.Withdraw(w, forward)
			mu.Unlock()
		}
	}()
	w.Task.ParkOn(on)
	ok = true
}

// Withdraw takes w off q, if it is still there, for a wait that will not
// use it any more, and passes on a notification w received but will not
// use by calling forward (nil: the primitive wakes every waiter, so there
// is nothing to pass on). The caller holds the primitive's lock.
func (q *WaitQueue) Withdraw(w *Waiter, forward func()) {
	q.Remove(w)
	if w.Notified && forward != nil {
		forward()
	}
}

// Selection is the claim state of one wait whose waiters a partner may
// complete in place (see Claim): a Select's, shared by its cases, or a
// single Send or Recv's. Only its owner moves it from arming to waiting and
// back; a partner, holding the primitive's lock, moves it from waiting to
// done, and the first to do so wins.
type Selection struct {
	state atomic.Uint32
}

// Selection states.
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
	// selDone: a partner completed one of its waiters, or the owner
	// unwound.
	selDone
	// selNotified: a notifier woke the owner to look again (see
	// MarkNotified); partners pass it by.
	selNotified
)

// Arm puts s back in the arming state, for a new wait.
func (s *Selection) Arm() { s.state.Store(selArming) }

// Wait opens s to partners: the owner is about to park.
func (s *Selection) Wait() { s.state.Store(selWaiting) }

// Reclaim is called by the owner once it has woken: it closes s to
// partners again and reports whether a partner claimed it first (then one
// of its waiters is, or is about to be, Done).
func (s *Selection) Reclaim() (claimed bool) {
	for {
		switch st := s.state.Load(); st {
		case selDone:
			return true
		case selArming:
			return false
		default: // waiting or notified; a partner may claim it meanwhile
			if s.state.CompareAndSwap(st, selArming) {
				return false
			}
		}
	}
}

// Close closes s to partners for good, whatever its state: its owner is
// unwinding.
func (s *Selection) Close() { s.state.Store(selDone) }
