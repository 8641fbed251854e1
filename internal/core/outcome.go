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
		r := recover()
		if r == nil {
			return // returned normally, or runtime.Goexit
		}
		if IsAbort(r) {
			out = OutcomeAborted
			return
		}
		out, p = OutcomePanicked, &Panic{Value: r, Stack: debug.Stack()}
	}()
	if t.IsAborted() {
		return OutcomeAborted, nil
	}
	f()
	return OutcomeOK, nil
}
