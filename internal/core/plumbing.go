package core

import "time"

// Plumbing is the scheduler interface the blocking primitives (Chan, Mutex,
// Select, Timeout, ...) and simrt.Spawn are written against: simrt.Caller,
// the primitives' ctx parameter, embeds it, and every simrt.Context is one.
// Both runtimes implement it (through internal/shell); package rtapi names
// it for runtime authors.
type Plumbing interface {
	// SpawnTask starts t as a new task below this context: the runtime calls
	// t.Run on the new task with the task's simrt.Context, then t.Done with
	// the outcome (nil after Run returned, a *simrt.PanicError after a
	// caught panic, simrt.ErrClosed when the task was aborted or could not
	// start). Done may be called again later (an aborted task reports
	// ErrClosed at once and again when it has unwound); only the first call
	// counts. The returned Aborter aborts the task and everything below it.
	// User code calls simrt.Spawn instead.
	SpawnTask(t Body) Aborter
	// CurrentTask returns the task that is making this call.
	CurrentTask() *Task
	// AfterFunc calls f once d of runtime time has passed, unless the
	// returned timer is stopped first. f runs outside any task and must only
	// wake tasks; it must not block.
	AfterFunc(d time.Duration, f func()) Timer
}

// Body is the work SpawnTask runs. simrt.Spawn provides one; runtimes call
// Run on the new task, passing their simrt.Context as ctx, and Done with
// its outcome.
type Body interface {
	Run(ctx Plumbing)
	Done(err error)
}

// RecordSpawner is a Plumbing whose runtime keeps each task in a
// TaskRecord. simrt.Spawn allocates the record together with the task's
// handle, one object for both, and calls SpawnRecord instead of SpawnTask,
// which it is in every other way. The record is zero; the runtime owns it
// from the call on. A nil rec makes the runtime allocate its own.
type RecordSpawner interface {
	SpawnRecord(t Body, rec *TaskRecord) Aborter
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
