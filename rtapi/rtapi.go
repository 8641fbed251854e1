// Package rtapi is what a runtime implements so that simrt's primitives and
// simrt.Spawn run on it. User code never needs it: it writes against
// simrt.Context, and passes it to the primitives as their simrt.Caller.
// A runtime author implements Plumbing (and the rest of simrt.Context).
//
// The types are defined in simrt's internal core, where the primitives and
// both runtimes share them; the names here are the same types (aliases).
//
// The smallest use is a runtime's spawn entry point handing a Task its
// context and its outcome:
//
//	func (c *Context) SpawnTask(t rtapi.Task) rtapi.Aborter {
//		go func() { t.Run(c); t.Done(nil) }() // a real runtime catches panics and aborts
//		return rtapi.NoAbort{}
//	}
package rtapi

import "github.com/simrt/simrt/internal/core"

// Plumbing is the scheduler interface the blocking primitives (Chan, Mutex,
// Select, Timeout, ...) and simrt.Spawn are written against: SpawnTask,
// CurrentTask and AfterFunc. Every simrt.Context is one; both runtimes
// implement it.
type Plumbing = core.Plumbing

// Task is the work Plumbing.SpawnTask runs. simrt.Spawn provides one;
// runtimes call Run on the new task, passing their simrt.Context as ctx,
// and Done with its outcome.
type Task = core.Body

// RecordSpawner is a Plumbing whose runtime keeps each task in a task
// record allocated with the task's handle (see core.RecordSpawner).
type RecordSpawner = core.RecordSpawner

// Aborter stops a task and everything below it.
type Aborter = core.Aborter

// Timer is a pending AfterFunc call. *time.Timer is one.
type Timer = core.Timer

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
