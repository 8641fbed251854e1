// Package rtapi is what a runtime implements so that simrt's primitives and
// simrt.Spawn run on it. User code never needs it: it writes against
// simrt.Context, which embeds Plumbing. A runtime author implements
// Plumbing (and the rest of simrt.Context) and keeps one Shutdown.
//
// The smallest use is a runtime's spawn entry point handing a Task its
// context and its outcome:
//
//	func (c *Context) SpawnTask(t rtapi.Task) rtapi.Aborter {
//		go func() { t.Run(c); t.Done(nil) }() // a real runtime catches panics and aborts
//		return rtapi.NoAbort{}
//	}
package rtapi

import (
	"time"

	"github.com/simrt/simrt/internal/core"
)

// Plumbing is the scheduler interface the blocking primitives (Chan, Mutex,
// Select, Timeout, ...) and simrt.Spawn are written against. Every
// simrt.Context is one; both runtimes implement it.
type Plumbing interface {
	// SpawnTask starts t as a new task below this context: the runtime calls
	// t.Run on the new task with the task's simrt.Context, then t.Done with
	// the outcome (nil after Run returned, a *simrt.PanicError after a
	// caught panic, simrt.ErrClosed when the task was aborted or could not
	// start). Done may be called again later (an aborted task reports
	// ErrClosed at once and again when it has unwound); only the first call
	// counts. The returned Aborter aborts the task and everything below it.
	// User code calls simrt.Spawn instead.
	SpawnTask(t Task) Aborter
	// CurrentTask returns the task that is making this call.
	CurrentTask() *core.Task
	// AfterFunc calls f once d of runtime time has passed, unless the
	// returned timer is stopped first. f runs outside any task and must only
	// wake tasks; it must not block.
	AfterFunc(d time.Duration, f func()) Timer
}

// Task is the work SpawnTask runs. simrt.Spawn provides one; runtimes call
// Run on the new task, passing their simrt.Context as ctx, and Done with
// its outcome.
type Task interface {
	Run(ctx Plumbing)
	Done(err error)
}

// RecordSpawner is a Plumbing whose runtime keeps each task in a
// core.TaskRecord. simrt.Spawn allocates the record together with the
// task's handle, one object for both, and calls SpawnRecord instead of
// SpawnTask, which it is in every other way. The record is zero; the runtime
// owns it from the call on. A nil rec makes the runtime allocate its own.
type RecordSpawner interface {
	SpawnRecord(t Task, rec *core.TaskRecord) Aborter
}

// Aborter stops a task and everything below it.
type Aborter interface {
	Abort()
}

// Timer is a pending AfterFunc call. *time.Timer is one.
type Timer interface {
	// Stop prevents the call and reports true, or reports false if the
	// call already happened or the timer was already stopped.
	Stop() bool
}

// TaskFuncs adapts two functions to a Task. Either may be nil.
type TaskFuncs struct {
	RunFunc  func(ctx Plumbing)
	DoneFunc func(err error)
}

// Run implements Task.Run.
func (t TaskFuncs) Run(ctx Plumbing) {
	if t.RunFunc != nil {
		t.RunFunc(ctx)
	}
}

// Done implements Task.Done.
func (t TaskFuncs) Done(err error) {
	if t.DoneFunc != nil {
		t.DoneFunc(err)
	}
}

// NoAbort is the Aborter of a task that never started.
type NoAbort struct{}

// Abort implements Aborter and does nothing.
func (NoAbort) Abort() {}
