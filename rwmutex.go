package simrt

import (
	"github.com/simrt/simrt/internal/core"
)

// RWMutex is a reader/writer lock whose Lock and RLock park the task
// instead of blocking the thread, so it is safe inside the simulator. The
// zero value is unlocked.
//
// The policy is sync.RWMutex's, with writer preference: once a writer waits
// in Lock, new RLock calls wait too, so a stream of readers cannot starve
// it; when a writer unlocks, the readers that were waiting get the lock
// before the next writer, so writers cannot starve readers either. Writers
// take the lock in the order they asked for it. A lock is handed to the
// waiter it wakes, so a task arriving meanwhile cannot take it first.
type RWMutex struct {
	mu      core.Lock
	readers int  // readers holding the lock, counting those woken with it
	writer  bool // a writer holds the lock, or has been woken with it
	rq, wq  core.WaitQueue
	// holder is the task that took the write lock with Lock, for a report
	// of a task parked on it; nil while no writer holds it, while the lock
	// is handed to a woken writer that has not run yet, and when it was
	// taken with TryLock, which knows no task.
	holder *core.Task
}

// RLock parks until no writer holds or waits for the lock, and takes a
// read lock. It panics at the call if ctx is nil.
func (m *RWMutex) RLock(ctx Caller) {
	mustContext(ctx == nil, "RWMutex.RLock")
	m.mu.Enter(ctx.CurrentTask())
	m.mu.Lock()
	if m.canRead() {
		m.readers++
		m.mu.Unlock()
		return
	}
	m.waitGranted(ctx, &m.rq, (*rwReadWait)(m), m.runlockLocked)
}

// TryRLock takes a read lock if RLock would not park, and reports whether
// it did.
func (m *RWMutex) TryRLock() bool {
	ok := m.tryRLockOp()
	m.mu.Point()
	return ok
}

func (m *RWMutex) tryRLockOp() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.canRead() {
		return false
	}
	m.readers++
	return true
}

// RUnlock releases a read lock. It panics if no read lock is held.
func (m *RWMutex) RUnlock() {
	m.rUnlockOp()
	m.mu.Point()
}

func (m *RWMutex) rUnlockOp() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readers == 0 {
		panic("simrt.RWMutex.RUnlock: no read lock is held")
	}
	m.runlockLocked()
}

// Lock parks until no reader or writer holds the lock, and takes it for
// writing. It panics at the call if ctx is nil.
func (m *RWMutex) Lock(ctx Caller) {
	mustContext(ctx == nil, "RWMutex.Lock")
	t := ctx.CurrentTask()
	m.mu.Enter(t)
	m.mu.Lock()
	if m.canWrite() {
		m.writer, m.holder = true, t
		m.mu.Unlock()
		return
	}
	m.waitGranted(ctx, &m.wq, (*rwWriteWait)(m), m.unlockLocked)
}

// TryLock takes the lock for writing if it is free, and reports whether it
// did.
func (m *RWMutex) TryLock() bool {
	ok := m.tryLockOp()
	m.mu.Point()
	return ok
}

func (m *RWMutex) tryLockOp() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.canWrite() {
		return false
	}
	m.writer = true
	return true
}

// Unlock releases the write lock. It panics if the lock is not held for
// writing.
func (m *RWMutex) Unlock() {
	m.unlockOp()
	m.mu.Point()
}

func (m *RWMutex) unlockOp() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.writer {
		panic("simrt.RWMutex.Unlock: the lock is not held for writing")
	}
	m.unlockLocked()
}

func (m *RWMutex) canRead() bool  { return !m.writer && m.wq.Empty() }
func (m *RWMutex) canWrite() bool { return !m.writer && m.readers == 0 }

// runlockLocked releases one read lock; the last one hands the lock to the
// first waiting writer. Called with mu held.
func (m *RWMutex) runlockLocked() {
	m.readers--
	if m.readers == 0 && m.wq.NotifyOne() {
		m.writer = true
	}
}

// unlockLocked releases the write lock and hands it on: to every waiting
// reader if there is one, else to the first waiting writer. Called with mu
// held.
func (m *RWMutex) unlockLocked() {
	m.writer, m.holder = false, nil
	for m.rq.NotifyOne() { // the readers go first, even with a writer waiting
		m.readers++
	}
	if m.readers == 0 && m.wq.NotifyOne() {
		m.writer = true
	}
}

// waitGranted parks the calling task on q until a release hands it the
// lock (its waiter is then notified). It is called with mu held and returns
// with mu released. If the park unwinds, a lock already handed over is
// released again; a writer that leaves without the lock lets in the
// readers it was holding back. on says what the task waits on, for
// failure reports.
func (m *RWMutex) waitGranted(ctx Caller, q *core.WaitQueue, on core.Blocker, release func()) {
	w := waiter(ctx, &m.mu)
	q.Push(w)
	granted := false
	defer func() {
		if !granted {
			m.mu.Lock()
			q.Remove(w)
			if w.Notified {
				release()
			} else {
				m.admitReaders()
			}
			m.mu.Unlock()
		}
	}()
	for {
		m.mu.Unlock()
		w.Task.ParkOn(on)
		m.mu.Lock()
		if granted = w.Notified; granted { // else a spurious wake, w still queued
			if q == &m.wq { // a writer: name it in reports
				m.holder = w.Task
			}
			m.mu.Unlock()
			return
		}
	}
}

// admitReaders hands the lock to every waiting reader if nothing holds
// them back any more. Called with mu held.
func (m *RWMutex) admitReaders() {
	if m.canRead() {
		for m.rq.NotifyOne() {
			m.readers++
		}
	}
}
