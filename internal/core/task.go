// Package core holds the runtime-independent half of a task: the park/unpark
// contract the blocking primitives are written against, abort by unwinding,
// and the deadlines behind simrt.Timeout. Both runtimes embed a *Task in each
// of their tasks and supply a Backend that knows how to suspend one.
package core

import (
	"sync/atomic"
	"unsafe"
)

// Backend suspends and resumes one task. Park and Yield must call the
// task's BeforePark first and AfterPark last. The simulator parks by yielding its
// coroutine to the executor; the production runtime blocks the goroutine.
//
// Park and Unpark follow permit semantics: an Unpark that arrives while the
// task is running makes its next Park return at once. Park may also return
// spuriously, so callers always re-check their condition in a loop.
type Backend interface {
	// Park suspends the calling task until Unpark is called.
	Park()
	// Unpark makes the task's pending or next Park return. It is safe to call
	// from any task of the runtime (and, in production, any goroutine).
	Unpark()
	// Yield lets every other ready task run once before the caller continues.
	Yield()
}

// UnwindChecker is implemented by a Backend that checks, before its task
// unwinds an abort, that the calling goroutine is
// the task's own: a goroutine the runtime did not start that reached the
// task's park (a library's own goroutine using the task's connection)
// would otherwise die of a bare abort panic. CheckUnwind panics with what
// happened if it is not; it is called only on the unwind path.
type UnwindChecker interface {
	CheckUnwind()
}

// abortSignal is the private panic value that unwinds an aborted task.
type abortSignal struct{}

func (abortSignal) String() string { return "simrt: task aborted" }

// Aborted is the value an aborted task panics with while it unwinds. The
// runtime's task wrapper recovers it; user code should let it pass.
var Aborted any = abortSignal{}

// IsAbort reports whether a recovered panic value is the abort sentinel.
func IsAbort(v any) bool { _, ok := v.(abortSignal); return ok }

// Deadline is one active simrt.Timeout on a task. When it expires, the task's
// next Park panics with the *Deadline, which unwinds the timed function to the
// Timeout that installed it.
type Deadline struct {
	expired atomic.Bool
	task    *Task
	outer   *Deadline // the deadline installed before this one, if any
	// Ext is what the layer above keeps beside the deadline (simrt.Timeout
	// keeps its runtime-time deadline and the contexts bound to it there).
	// Core never reads it.
	Ext any
}

// Expire marks the deadline as passed and wakes its task. It is safe to call
// from a timer callback.
func (d *Deadline) Expire() {
	d.ExpireOwn()
	d.task.Unpark()
}

// ExpireOwn marks the deadline as passed without waking its task: call it
// from the task itself, which is running (a deadline already passed when
// it is installed). The task's next park unwinds.
func (d *Deadline) ExpireOwn() {
	d.expired.Store(true)
	d.task.flags.Or(flagInterrupt)
}

// Task is the state every runtime keeps for one task, whatever the runtime.
type Task struct {
	// flags holds flagInterrupt, set by Abort and by an expiring deadline
	// (the fast path of Park and Yield checks this one bit and nothing
	// else), flagAborted, set by Abort, and flagSequential, set once by
	// SetSequential, which also puts the task's RuntimeID in the bits
	// above the flags (flagsRuntimeShift).
	flags atomic.Uint32
	// State is the Backend's own word, in what would otherwise be padding:
	// core never reads or writes it. The production runtime keeps its
	// park permit and its task flags here.
	State atomic.Uint32
	// deadline is the innermost active deadline; each links to the one
	// outside it. Owned by the task itself.
	deadline *Deadline
	backend  Backend
	// exitHooks holds the exit hooks, the latest first. Owned by the task
	// itself. A list and a single pointer rather than slices keep Task
	// small: every task of both runtimes embeds one, and few use either.
	exitHooks *exitHook
	// single is the waiter reused by single-primitive waits: storage the
	// runtime supplies (SetWaiter) where it costs the least, or made on
	// first use. Owned by the task itself.
	single *Waiter
}

// Task flags.
const (
	flagInterrupt  uint32 = 1 << iota // aborted, or a deadline expired: Park must unwind
	flagAborted                       // Abort has been called
	flagSequential                    // the task's runtime never runs two tasks at once

	// flagsRuntimeShift is where a sequential task's RuntimeID starts in
	// flags: the ID costs the task no extra word.
	flagsRuntimeShift = 3
)

// NewTask returns a task that parks through b.
func NewTask(b Backend) *Task {
	return &Task{backend: b}
}

// SetSequential tells the task that its runtime runs one task at a time
// and orders them itself, so the primitives it waits on need no locking
// (see Lock), and which runtime instance that is: id, from NewRuntimeID,
// made once per runtime. It panics if id is 0. Call it while building the
// task.
func (t *Task) SetSequential(id RuntimeID) {
	if id == 0 || id > maxRuntimeID {
		panic("core: SetSequential with an invalid RuntimeID")
	}
	t.flags.Or(flagSequential | uint32(id)<<flagsRuntimeShift)
}

// runtimeID returns the RuntimeID of a sequential task, 0 for any other.
func (t *Task) runtimeID() RuntimeID { return RuntimeID(t.flags.Load() >> flagsRuntimeShift) }

// SetWaiter gives the task the storage of its reusable waiter (see
// Waiter). The simulator puts it in every task; the production runtime
// puts it beside the state it makes when a task first blocks, so a task
// that never blocks carries none. Call it from the task itself, or while
// building the task.
func (t *Task) SetWaiter(w *Waiter) { t.single = w }

// SetBackend replaces the backend. Runtimes call it once, while building the
// task, when the backend needs the *Task to exist first.
func (t *Task) SetBackend(b Backend) { t.backend = b }

// Park suspends the task until it is unparked. If the task has been
// aborted, Park panics with Aborted instead of blocking, and again when it
// wakes, so an aborted task never runs on past its park. If one of its
// deadlines has expired, Park panics with that *Deadline before blocking;
// a task woken at the instant its deadline expires first gets to finish
// what it was waiting for (the timed function wins a tie, as in the
// reference's biased select).
func (t *Task) Park() {
	if w := t.single; w != nil {
		w.blocker = nil
	}
	t.backend.Park()
}

// BeforePark panics if the task must unwind instead of blocking (aborted,
// or a deadline expired). Every Backend calls it first in Park and Yield;
// keeping the check in the backend keeps Park and Yield one call deep, which
// matters when 10,000 tasks' stacks compete for the cache.
func (t *Task) BeforePark() {
	if t.flags.Load()&flagInterrupt != 0 {
		t.unwind()
	}
}

// AfterPark panics if the task was aborted while parked. Every Backend
// calls it last in Park and Yield.
func (t *Task) AfterPark() {
	if t.flags.Load()&flagAborted != 0 {
		t.unwind()
	}
}

// Unpark wakes the task (see Backend.Unpark).
func (t *Task) Unpark() { t.backend.Unpark() }

// Yield lets every other ready task run once. An aborted task panics instead.
func (t *Task) Yield() { t.backend.Yield() }

// unwind panics with the reason the task was interrupted: Aborted, or the
// outermost expired deadline. A stale interrupt (its deadline already gone)
// is cleared. The flag is cleared before the scan so that a deadline that
// expires meanwhile sets it again.
//
//go:noinline
func (t *Task) unwind() {
	if t.flags.And(^flagInterrupt)&flagAborted != 0 {
		t.flags.Or(flagInterrupt)
		if c, ok := t.backend.(UnwindChecker); ok {
			c.CheckUnwind()
		}
		panic(Aborted)
	}
	var outermost *Deadline
	for d := t.deadline; d != nil; d = d.outer {
		if d.expired.Load() {
			outermost = d
		}
	}
	if outermost != nil {
		t.flags.Or(flagInterrupt)
		panic(outermost)
	}
}

// Abort marks the task as aborted and wakes it so that its pending Park
// unwinds. It reports whether this call was the one that aborted it.
func (t *Task) Abort() bool {
	// Setting the interrupt again on an aborted task changes nothing: it
	// stays set while the task unwinds.
	if t.flags.Or(flagAborted|flagInterrupt)&flagAborted != 0 {
		return false
	}
	t.backend.Unpark()
	return true
}

// IsAborted reports whether Abort has been called.
func (t *Task) IsAborted() bool { return t.flags.Load()&flagAborted != 0 }

// PushDeadline installs a new innermost deadline and returns it. The caller
// arranges for Expire to be called and must PopDeadline when done.
func (t *Task) PushDeadline() *Deadline {
	d := &Deadline{task: t, outer: t.deadline}
	t.deadline = d
	return d
}

// InnermostDeadline returns the innermost active deadline, or nil. Call it
// only from the task itself.
func (t *Task) InnermostDeadline() *Deadline { return t.deadline }

// PopDeadline removes d, which must be the innermost deadline.
func (t *Task) PopDeadline(d *Deadline) {
	if t.deadline != d {
		panic("simrt: deadlines popped out of order")
	}
	t.deadline, d.outer = d.outer, nil
}

// OnExit registers f to run when the task ends, however it ends. Hooks run
// in registration order, outside any park.
func (t *Task) OnExit(f func()) { t.exitHooks = &exitHook{f: f, next: t.exitHooks} }

// exitHook is one hook registered by OnExit.
type exitHook struct {
	f    func()
	next *exitHook
}

// RunExitHooks runs and clears the exit hooks. Runtimes call it once, after
// the task's function has returned or unwound.
func (t *Task) RunExitHooks() {
	h := t.exitHooks
	if h == nil {
		return
	}
	t.exitHooks = nil
	var first *exitHook // reverse the list into registration order
	for h != nil {
		next := h.next
		h.next, first = first, h
		h = next
	}
	for ; first != nil; first = first.next {
		first.f()
	}
}

// TaskRecord is storage for one production task, which simrt.Spawn
// allocates together with the task's handle so that a spawn makes one
// object for both (see rtapi.RecordSpawner). The production runtime keeps
// its task record in it: its layout is that record's, word for word as the
// garbage collector sees it (a Task, nine pointer words, one word of plain
// data), which a test of the production runtime checks. Nothing else reads
// or writes it.
type TaskRecord struct {
	_ Task
	_ [9]unsafe.Pointer
	_ uint64
}
