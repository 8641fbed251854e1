package simrt

import (
	"github.com/simrt/simrt/internal/core"
)

// Mutex is a lock whose Lock parks the task instead of blocking the thread,
// so it is safe inside the simulator. The zero value is unlocked.
type Mutex struct {
	mu     core.Lock
	locked bool
	q      core.WaitQueue
	// holder is the task that took the mutex with Lock or OnLock, for a
	// report of a task parked on it; nil while it is free, and when it was
	// taken with TryLock, which knows no task.
	holder *core.Task
}

// Lock parks until the mutex is free and takes it.
// It panics at the call if ctx is nil.
func (m *Mutex) Lock(ctx Caller) {
	mustContext(ctx == nil, "Mutex.Lock")
	t := ctx.CurrentTask()
	m.mu.Enter(t)
	m.mu.Lock()
	if !m.take() {
		waitUntilOn(ctx, &m.mu, &m.q, (*mutexLockWait)(m), m.forward, m.take)
	}
	m.holder = t
	m.mu.Unlock()
}

// take takes the mutex if it is free and reports whether it did. Called
// with mu held.
func (m *Mutex) take() bool {
	if m.locked {
		return false
	}
	m.locked = true
	return true
}

// TryLock takes the mutex if it is free and reports whether it did.
func (m *Mutex) TryLock() bool {
	ok := m.tryLockOp()
	m.mu.Point()
	return ok
}

func (m *Mutex) tryLockOp() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.take()
}

// Unlock releases the mutex and wakes the longest waiter. It panics if the
// mutex is not locked.
func (m *Mutex) Unlock() {
	m.unlockOp()
	m.mu.Point()
}

func (m *Mutex) unlockOp() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.locked {
		panic("simrt.Mutex.Unlock: mutex is not locked")
	}
	m.locked, m.holder = false, nil
	m.q.NotifyOne()
}

func (m *Mutex) forward() {
	if !m.locked {
		m.q.NotifyOne()
	}
}

// OnLock is a Select case that takes the mutex and then calls f, which may
// be nil. The caller must Unlock it afterwards.
func (m *Mutex) OnLock(f func()) Case {
	return &primCase[struct{}, func()]{p: m, f: f}
}

func (m *Mutex) armCase(_ *struct{}, w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&m.mu, &m.q, w, func() bool {
		if !m.take() {
			return false
		}
		m.holder = w.Task
		return true
	})
}

func (m *Mutex) disarmCase(_ *struct{}, w *core.Waiter) bool {
	return disarmNotified(&m.mu, &m.q, w, m.forward)
}

func (m *Mutex) fireCase(_ *struct{}, f func()) {
	if f != nil {
		f()
	}
}

func (m *Mutex) describeCase(*struct{}) string { return (*mutexLockWait)(m).BlockedOn() }
