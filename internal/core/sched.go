package core

import "math/rand/v2"

// Scheduler is the hook through which a runtime that chooses its own
// interleavings (the simulator) sees the scheduling points of its tasks.
// The simulator's Backend implements it, and a task of a sequential
// runtime (SetSequential) reaches it through its backend. The production
// runtime's tasks are not sequential: Go's scheduler interleaves its
// goroutines, and a scheduling point there costs one branch.
type Scheduler interface {
	// Point is called by the running task at a scheduling point: a
	// primitive operation that does not park. The scheduler may yield the
	// task there.
	Point()
	// Choose returns one of n alternatives, 0 <= choice < n (n > 1): the
	// case a Select with several ready cases tries first.
	Choose(n int) int
}

// Point marks a scheduling point of the task, which must be the running
// task. Call it outside any primitive's lock: the task may yield.
func (t *Task) Point() {
	if t.flags.Load()&flagSequential != 0 {
		if s, ok := t.backend.(Scheduler); ok {
			s.Point()
		}
	}
}

// Choose returns one of n alternatives (see Scheduler.Choose). Outside a
// sequential runtime the choice is random, as Go's select makes it.
func (t *Task) Choose(n int) int {
	if n < 2 {
		return 0
	}
	if t.flags.Load()&flagSequential != 0 {
		if s, ok := t.backend.(Scheduler); ok {
			return s.Choose(n)
		}
	}
	return rand.IntN(n)
}

// Point marks a scheduling point on the primitive guarded by l for the
// running task, whichever it is, once a simulated task has entered it; for
// a primitive of the production runtime it does nothing. Call it without l
// held.
func (l *Lock) Point() {
	if o := l.owner; o != nil {
		o.Point()
	}
}

// Interrupted reports whether the task must unwind at its next park
// (aborted, or a deadline expired). Call it only from the task's runtime.
func (t *Task) Interrupted() bool { return t.flags.Load()&flagInterrupt != 0 }
