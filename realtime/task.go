package realtime

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/metrics"
)

// A task's state word (core.Task.State) holds its park permit in the low
// two bits (see Park and Unpark) and its flags above.
const (
	permitNone   uint32 = iota // running, no wake pending
	permitReady                // a wake is pending: the next Park returns at once
	permitParked               // blocked in Park, waiting on wake
	permitMask   uint32 = 3

	flagEnded    uint32 = 1 << 2 // the task's function has returned or unwound
	flagReleased uint32 = 1 << 3 // the running gauge has been decremented
)

// task is one production task: a goroutine that parks by sleeping on a
// runtime semaphore. A spawned task is one allocation with its context and
// its supervision node. What only a task that blocks or opens real I/O
// needs (the semaphore among it) is in taskIO, made on first use, so a
// task that never blocks carries none of it.
type task struct {
	ct   core.Task
	ctx  Context                // the context the task receives
	node supervise.Node         // spawn node; unused by the root
	work rtapi.Task             // the spawned work, which also takes the outcome; nil for the root
	io   atomic.Pointer[taskIO] // made on first use
}

// A spawned task is one allocation; keep it within the 128-byte size class.
var _ [128 - unsafe.Sizeof(task{})]struct{}

// taskIO is the state of a task that has blocked or opened real I/O.
type taskIO struct {
	// wake is the semaphore a parked task sleeps on: Unpark releases it
	// once for each Park it ends (see the permit above), so it never
	// counts past one. A semaphore rather than a channel: it lives here,
	// with no allocation of its own, and blocks without spinning.
	wake uint32

	closers closers // real I/O the task opened, closed if it is aborted

	waiter core.Waiter // the task's reusable waiter (core.Task.SetWaiter)

	// The network operation the task is taken to be blocked in, cut
	// short if the task is interrupted (see interrupt.go).
	mu sync.Mutex
	op atomic.Pointer[ioTarget] // written under mu

	marker   atomic.Pointer[struct{}] // its goroutine's own profiler label set, once it has blocked
	unmarked unsafe.Pointer           // the label set the goroutine had before, for tasks it spawns
}

func (t *task) name() string { return t.ctx.Scope().Name() }

// rt returns the task's runtime.
func (t *task) rt() *runtime { return t.ctx.rt() }

// isRoot reports whether t is the root task, the only one without work.
func (t *task) isRoot() bool { return t.work == nil }

// label returns the task's series: its scope's (a spawned task shares its
// spawner's scope, whose series the spawn resolved), or the root's.
func (t *task) label() *metrics.TaskLabel {
	if t.isRoot() {
		return t.rt().rootLabel
	}
	return t.ctx.Scope().TaskLabel()
}

// hasEnded reports whether the task's function has returned or unwound.
func (t *task) hasEnded() bool { return t.ct.State.Load()&flagEnded != 0 }

// end records that the task's function has returned or unwound. The root
// keeps its running gauge until the shutdown.
func (t *task) end() { t.ct.State.Or(flagEnded) }

// endAndRelease is end and releaseGauge in one atomic operation.
func (t *task) endAndRelease() { t.releaseGaugeAnd(flagEnded) }

// ioState returns the task's taskIO, making it on first use.
func (t *task) ioState() *taskIO {
	if x := t.io.Load(); x != nil {
		return x
	}
	t.io.CompareAndSwap(nil, &taskIO{})
	return t.io.Load()
}

// closers returns the task's I/O set.
func (t *task) closers() *closers { return &t.ioState().closers }

// Park implements core.Backend by blocking the goroutine until Unpark.
func (t *task) Park() {
	t.ct.BeforePark()
	defer t.ct.AfterPark()
	if t.swapPermit(permitReady, permitNone) {
		return
	}
	x := t.ioState() // made already if the task blocks through CurrentTask
	if !t.swapPermit(permitNone, permitParked) {
		if t.ct.State.Load()&permitMask == permitParked {
			panic(fmt.Sprintf("realtime: two goroutines blocked through the context of task %q at once; "+
				"a task must block only through the Context it was given", t.name()))
		}
		t.swapPermit(permitReady, permitNone) // woken meanwhile
		return
	}
	semacquire(&x.wake)
	t.label().Polls.Add(1)
}

// Unpark implements core.Backend: it wakes a blocked Park, or makes the
// next one return at once. Safe from any goroutine. If the task has been
// interrupted (an abort, an expired deadline) while blocked in a network
// operation, it also cuts that operation short.
func (t *task) Unpark() {
	x := t.io.Load()
	if x != nil && x.op.Load() != nil && t.ct.InterruptPending() {
		t.interruptIO(x)
	}
	for {
		s := t.ct.State.Load()
		switch s & permitMask {
		case permitReady:
			return
		case permitNone:
			if t.ct.State.CompareAndSwap(s, s|permitReady) {
				return
			}
		case permitParked:
			if t.ct.State.CompareAndSwap(s, s&^permitMask) {
				if x == nil { // made by Park before it set permitParked
					x = t.io.Load()
				}
				semrelease(&x.wake, false, 0)
				return
			}
		}
	}
}

// swapPermit moves the permit from one state to another, keeping the
// flags, and reports whether it was in the first.
func (t *task) swapPermit(from, to uint32) bool {
	for {
		s := t.ct.State.Load()
		if s&permitMask != from {
			return false
		}
		if t.ct.State.CompareAndSwap(s, s&^permitMask|to) {
			return true
		}
	}
}

// Yield implements core.Backend by letting other goroutines run.
func (t *task) Yield() {
	t.ct.BeforePark()
	goruntime.Gosched()
	t.ct.AfterPark()
}

// taskOf returns the task whose spawn node n is: the tree hands back only
// spawn nodes, and every spawn node is the node field of a task.
func taskOf(n *supervise.Node) *task {
	return supervise.Owner[task](n, unsafe.Offsetof(task{}.node))
}

// abortSpawned is the tree's abortTask: it aborts the task of a spawn node.
func abortSpawned(n *supervise.Node) { taskOf(n).Abort() }

// Abort stops the task (see abortSpawned): the task unwinds at its next park,
// real I/O it opened is interrupted (so a blocked read or write returns;
// it is closed at shutdown unless the program closes it first), and
// its handle reports ErrClosed at once.
func (t *task) Abort() {
	if t.hasEnded() || !t.ct.Abort() {
		return
	}
	t.closers().interruptAll()
	t.releaseGauge()
	if t.work != nil {
		t.work.Done(simrt.ErrClosed)
	}
}

// releaseGauge decrements the running gauge exactly once, whoever gets
// there first: the abort or the end of the task.
func (t *task) releaseGauge() { t.releaseGaugeAnd(0) }

// releaseGaugeAnd is releaseGauge that also sets the flags also, in the
// same atomic operation.
func (t *task) releaseGaugeAnd(also uint32) {
	if t.ct.State.Or(flagReleased|also)&flagReleased == 0 {
		t.label().Running.Add(-1)
	}
}

var _ core.Backend = (*task)(nil)

// The runtime's semaphore, as package sync uses it (sync.WaitGroup sleeps
// on it). The Go runtime keeps these two for outside users, with their
// signatures (go.dev/issue/67401).

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(s *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(s *uint32, handoff bool, skipframes int)
