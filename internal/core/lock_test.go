package core

import (
	"strings"
	"testing"
)

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
	task.SetSequential(NewRuntimeID())
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
	if l.bound == 0 {
		t.Fatal("lock not bound")
	}
}

// sequentialTasks returns two tasks of one sequential runtime. Their
// backend is nil: Point and Enter reach no scheduler.
func sequentialTasks(id RuntimeID) (*Task, *Task) {
	a, b := NewTask(nil), NewTask(nil)
	a.SetSequential(id)
	b.SetSequential(id)
	return a, b
}

// mustPanicSecondRuntime runs f and checks that it panics with the
// second-runtime message.
func mustPanicSecondRuntime(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg, _ := r.(string)
		if !strings.Contains(msg, "used from a second runtime; a primitive belongs to one runtime") {
			t.Errorf("%s: recovered %v, want the second-runtime panic", what, r)
		}
	}()
	f()
}

func TestLockOneRuntimeDoesNotPanic(t *testing.T) {
	var l Lock
	a, b := sequentialTasks(NewRuntimeID())
	l.Enter(a)
	l.Lock()
	l.Bind(a)
	l.Unlock()
	l.Enter(b)
	l.Lock()
	l.Bind(b)
	l.Unlock()
	// Two production tasks share a lock freely.
	var p Lock
	p1, p2 := NewTask(nil), NewTask(nil)
	p.Enter(p1)
	p.Lock()
	p.Bind(p1)
	p.Unlock()
	p.Enter(p2)
	p.Lock()
	p.Bind(p2)
	p.Unlock()
}

func TestLockSecondSequentialRuntimePanics(t *testing.T) {
	first, _ := sequentialTasks(NewRuntimeID())
	second, _ := sequentialTasks(NewRuntimeID())

	var entered Lock
	entered.Enter(first)
	mustPanicSecondRuntime(t, "Enter from a second simulator", func() { entered.Enter(second) })

	var bound Lock
	bound.Lock()
	bound.Bind(first)
	bound.Unlock()
	mustPanicSecondRuntime(t, "Bind from a second simulator", func() {
		bound.Lock()
		defer bound.Unlock()
		bound.Bind(second)
	})
}

func TestLockProductionAfterSequentialPanics(t *testing.T) {
	sim, _ := sequentialTasks(NewRuntimeID())
	prod := NewTask(nil)

	var entered Lock
	entered.Enter(sim)
	mustPanicSecondRuntime(t, "Enter from production", func() { entered.Enter(prod) })

	var bound Lock
	bound.Lock()
	bound.Bind(sim)
	bound.Unlock()
	mustPanicSecondRuntime(t, "Bind from production", func() {
		bound.Lock()
		defer bound.Unlock()
		bound.Bind(prod)
	})
}

func TestSetSequentialRejectsNoRuntime(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SetSequential(0) did not panic")
		}
	}()
	NewTask(nil).SetSequential(0)
}

func TestNewRuntimeIDDistinct(t *testing.T) {
	a, b := NewRuntimeID(), NewRuntimeID()
	if a == 0 || b == 0 || a == b {
		t.Fatalf("NewRuntimeID gave %d and %d", a, b)
	}
	task := NewTask(nil)
	task.SetSequential(b)
	if got := task.runtimeID(); got != b {
		t.Fatalf("runtimeID = %d, want %d", got, b)
	}
}
