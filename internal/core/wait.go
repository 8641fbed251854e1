package core

// Waiter is one task waiting on one primitive. A task blocked in a Select
// has one Waiter per case. Waiters live on a WaitQueue guarded by the
// primitive's lock.
type Waiter struct {
	Task *Task
	// Notified is set when a notifier popped this waiter and woke its task.
	Notified bool
	q        *WaitQueue
	prev     *Waiter
	next     *Waiter
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
	*w = Waiter{Task: t}
	return w
}

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
	w.Notified = true
	w.Task.Unpark()
	return true
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
		w.Notified = true
		tasks = append(tasks, w.Task)
	}
	return tasks
}
