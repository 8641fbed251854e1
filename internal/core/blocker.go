package core

// Blocker is what a parked task waits on, as a failure report describes
// it: a channel, a mutex, a sleep, a connection, another task. The
// primitive passes itself (or a named view of itself, which costs nothing)
// to ParkOn, so recording a wait is one store; the description is made
// only when a report asks for it.
type Blocker interface {
	// BlockedOn describes the wait in a few words ("receive on chan
	// made at node.go:140", "Await task worker_2"). A runtime calls it
	// only to report a run that stalled or timed out, from its executor,
	// while the task is parked: it must not block, and it must say the
	// same thing in every run of a seed (no addresses).
	BlockedOn() string
}

// ParkOn is Park that records b as what the task waits on, for failure
// reports (see WaitingOn). Park records nothing, so a task never shows a
// wait it has left.
//
// The record lives in the task's reusable waiter (see SetWaiter); a task
// of a runtime that has given it none yet records nothing. The simulator
// gives every task one.
func (t *Task) ParkOn(b Blocker) {
	if w := t.single; w != nil {
		w.blocker = b
	}
	t.backend.Park()
}

// WaitingOn returns what the task waits on while it is parked: the Blocker
// of its pending ParkOn, or nil when it parked through Park. Once the task
// runs again the value is stale until its next park; a runtime asks only
// about tasks it knows are parked.
func (t *Task) WaitingOn() Blocker {
	if w := t.single; w != nil {
		return w.blocker
	}
	return nil
}

// TaskNamer is implemented by a runtime's Aborter (what SpawnTask
// returns) that can name its task, so that a report can say which task an
// Await waits for. Called only to build a report.
type TaskNamer interface {
	// TaskName returns the name of the task's context ("" for the root).
	TaskName() string
}

// WaitText describes a wait with a fixed text, for waits that have no
// primitive to describe them (the text must be made without allocating on
// the park path, so keep it a constant).
type WaitText string

// BlockedOn implements Blocker.
func (b WaitText) BlockedOn() string { return string(b) }

// TaskDescriber is implemented by a runtime's task Backend that can name
// its task for a report, so that a wait on a lock can say which task holds
// it. Called only to build a report.
type TaskDescriber interface {
	// DescribeTask names the task as the report's task list does
	// (`task "worker" (#3)`), saying so if it has ended.
	DescribeTask() string
}

// Describe names t for a failure report if its runtime can (its Backend is
// a TaskDescriber), and returns "" otherwise. Call it only to build a
// report, from the runtime that runs t.
func (t *Task) Describe() string {
	if d, ok := t.backend.(TaskDescriber); ok {
		return d.DescribeTask()
	}
	return ""
}
