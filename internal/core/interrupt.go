package core

// This file serves runtimes whose tasks can block outside Park, in a
// system call: the production runtime interrupts such a call itself (see
// realtime's I/O tracking) and then unwinds the task from here.

// InterruptPending reports whether the task's interrupt flag is set: it
// has been aborted, or one of its deadlines has expired, or a deadline
// expired just as its Timeout was returning (a stale flag, cleared by the
// task's next Park, Yield or CheckInterrupt). Safe from any goroutine.
func (t *Task) InterruptPending() bool { return t.flags.Load()&flagInterrupt != 0 }

// CheckInterrupt does what Park does before blocking, without blocking: if
// the task has been aborted it panics with Aborted, if one of its
// deadlines has expired it panics with that *Deadline, and otherwise it
// clears a stale interrupt flag and returns. Call it only from the task's
// own goroutine, for instance right after a system call that the runtime
// cut short because the task was interrupted.
func (t *Task) CheckInterrupt() {
	if t.flags.Load()&flagInterrupt != 0 {
		t.unwind()
	}
}
