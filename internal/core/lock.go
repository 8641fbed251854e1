package core

import "sync"

// Lock guards the state of one blocking primitive. Tasks of the production
// runtime run in parallel, and Lock is then a sync.Mutex. The simulator runs
// one task at a time and orders them by coroutine switches, so a primitive
// needs no lock there: once a simulated task has waited on it (Bind), Lock
// and Unlock cost nothing. A primitive belongs to one runtime.
type Lock struct {
	mu sync.Mutex
	// solo is written once, by a task of a sequential runtime while it
	// holds mu; the production runtime only ever reads it.
	solo bool
	// owner is a simulated task that entered the primitive (see Enter),
	// whose scheduler the primitive's task-less operations reach. Never
	// written in the production runtime.
	owner *Task
}

// Lock locks l.
func (l *Lock) Lock() {
	if !l.solo {
		l.mu.Lock()
	}
}

// Unlock unlocks l.
func (l *Lock) Unlock() {
	if !l.solo {
		l.mu.Unlock()
	}
}

// Bind is called with l held by task t, which is about to wait on the
// primitive. If t's runtime runs its tasks one at a time, l stops locking
// from here on (it stays held-and-released consistently: the caller's
// Unlock becomes a no-op too).
func (l *Lock) Bind(t *Task) {
	if !l.solo && t.flags.Load()&flagSequential != 0 {
		l.solo = true
		l.mu.Unlock()
	}
}
