package core

import "testing"

func TestLockBindParallelKeepsLocking(t *testing.T) {
	var l Lock
	task := NewTask(nil)
	l.Lock()
	l.Bind(task)
	if l.mu.TryLock() {
		t.Fatal("a lock bound by a task of a parallel runtime must still exclude")
	}
	l.Unlock()
	if !l.mu.TryLock() {
		t.Fatal("Unlock did not release the mutex")
	}
	l.mu.Unlock()
}

func TestLockBindSequentialStopsLocking(t *testing.T) {
	var l Lock
	task := NewTask(nil)
	task.SetSequential()
	l.Lock()
	l.Bind(task)
	// Bound: the mutex is released at once, and the caller's Unlock, like
	// every later Lock and Unlock, leaves it alone.
	l.Unlock()
	l.Lock()
	l.Lock() // would deadlock if it still locked
	if !l.mu.TryLock() {
		t.Fatal("a lock bound by a sequential task must not hold its mutex")
	}
	l.mu.Unlock()
	l.Unlock()
	l.Unlock()
	l.Bind(task) // binding again changes nothing
	if !l.solo {
		t.Fatal("lock not solo")
	}
}
