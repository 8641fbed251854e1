package core

import "runtime/debug"

// Outcome is how a task's function ended.
type Outcome uint8

const (
	// OutcomeNone: still running, or ended by runtime.Goexit.
	OutcomeNone Outcome = iota
	// OutcomeOK: the function returned.
	OutcomeOK
	// OutcomeAborted: unwound by an abort, or never started.
	OutcomeAborted
	// OutcomePanicked: the function panicked.
	OutcomePanicked
)

// Panic is a task's panic: its value and the stack where it happened
// (recorded in the task's own recover, because a panic re-raised across a
// coroutine boundary loses its stack).
type Panic struct {
	Value any
	Stack []byte
}

// Call runs f as the body of task t and reports how it ended. A task
// aborted before it started does not run f. Both runtimes wrap every task
// in Call, so they classify endings the same way.
func (t *Task) Call(f func()) (out Outcome, p *Panic) {
	defer func() {
		if out == OutcomeNone { // a panic or runtime.Goexit
			out, p = Recovered(recover())
		}
	}()
	if t.IsAborted() {
		return OutcomeAborted, nil
	}
	f()
	return OutcomeOK, nil
}

// Recovered classifies what a task's deferred function recovered, r, the
// way Call does: OutcomeNone for nil (runtime.Goexit), OutcomeAborted for
// the abort sentinel, and otherwise OutcomePanicked with the panic and the
// stack where it happened (Recovered must be called from the deferred
// function itself, so that the stack is still the panic's). A runtime that
// runs a task's body without Call (to keep its goroutine one frame and one
// deferred call shorter) calls it instead, so both runtimes classify
// endings the same way.
func Recovered(r any) (Outcome, *Panic) {
	switch {
	case r == nil:
		return OutcomeNone, nil
	case IsAbort(r):
		return OutcomeAborted, nil
	}
	return OutcomePanicked, &Panic{Value: r, Stack: debug.Stack()}
}
