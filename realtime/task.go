package realtime

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/metrics"
)

// A task's state word (core.Task.State) holds its flags; its park
// permit is in its taskIO (see Park and Unpark).
const (
	flagEnded    uint32 = 1 << 0 // the task's function has returned or unwound
	flagReleased uint32 = 1 << 1 // the running gauge has been decremented
)

// task is one production task: a goroutine that parks by sleeping in the
// Go scheduler (see sleeper). A spawned task is one allocation with its context and
// its supervision node. What only a task that blocks or opens real I/O
// needs (its park permit among it) is in taskIO, made on first use, so a
// task that never blocks carries none of it.
//
// The layout is core.TaskRecord's (the pointer words first, then the
// node's plain data), so that a task spawned through simrt.Spawn lives in
// the record allocated with its handle (see spawnRecord); spawn_layout_test.go
// checks it word by word.
type task struct {
	ct   core.Task
	ctx  Context                // the context the task receives
	work rtapi.Task             // the spawned work, which also takes the outcome; nil for the root
	io   atomic.Pointer[taskIO] // made on first use
	node supervise.Node         // spawn node; unused by the root
}

// A spawned task fills a core.TaskRecord exactly, and the record alone
// stays within the 128-byte size class.
var (
	_ [unsafe.Sizeof(core.TaskRecord{}) - unsafe.Sizeof(task{})]struct{}
	_ [unsafe.Sizeof(task{}) - unsafe.Sizeof(core.TaskRecord{})]struct{}
	_ [128 - unsafe.Sizeof(task{})]struct{}
)

// taskIO is the state of a task that has blocked or opened real I/O.
type taskIO struct {
	// permit is the task's park permit: permitNone while it runs with
	// no wake pending, permitReady when a wake is pending (its next Park
	// returns at once), and otherwise the token of its goroutine asleep
	// in Park, which the Unpark that takes the token out wakes (see
	// sleep and wake in park_*.go).
	permit  atomic.Uintptr
	sleeper // what the goroutine needs to sleep and be woken
	// pollState says where the task's next poll counts (see countPoll),
	// in what would otherwise be the sleeper's padding.
	pollState uint8

	closers closers // real I/O the task opened, interrupted if it is aborted (see closers)

	waiter core.Waiter // the task's reusable waiter (core.Task.SetWaiter)

	// The task's own poll count, tracked by its series from its second
	// sleep until it ends (see countPoll); written only by the task's
	// goroutine.
	polls metrics.TaskPolls

	// The network operation the task is taken to be blocked in, cut
	// short if the task is interrupted (see interrupt.go).
	mu sync.Mutex
	op atomic.Pointer[ioTarget] // written under mu

	marker   atomic.Pointer[struct{}] // its goroutine's own profiler label set, once it has blocked
	unmarked unsafe.Pointer           // the label set the goroutine had before, for tasks it spawns
}

func (t *task) name() string { return shell.ScopeOf(&t.ctx.shellContext).Name() }

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
	return shell.ScopeOf(&t.ctx.shellContext).TaskLabel()
}

// hasEnded reports whether the task's function has returned or unwound.
func (t *task) hasEnded() bool { return t.ct.State.Load()&flagEnded != 0 }

// end records that the task's function has returned or unwound. The root
// keeps its running gauge until the shutdown.
func (t *task) end() {
	t.ct.State.Or(flagEnded)
	t.foldPolls()
}

// endAndRelease is end and releaseGauge in one atomic operation.
func (t *task) endAndRelease() {
	t.releaseGaugeAnd(flagEnded)
	t.foldPolls()
}

// countPoll counts a poll of the task after a sleep, on its goroutine. A
// task's first sleep adds to its series' shared counter; from its second
// on, the task counts in its own TaskPolls, tracked by the series until
// the task ends, so two tasks handing turns to each other do not share
// the counter's cache line.
func (t *task) countPoll(x *taskIO) {
	switch x.pollState {
	case pollsOwn:
		x.polls.Inc()
	case pollsOnce:
		if !t.hasEnded() {
			x.polls.Track(t.label())
			x.pollState = pollsOwn
			x.polls.Inc()
			return
		}
		t.label().Polls.Add(1)
	case pollsFirst:
		x.pollState = pollsOnce
		t.label().Polls.Add(1)
	default: // pollsShared: the task has ended
		t.label().Polls.Add(1)
	}
}

// foldPolls moves the task's own poll count into its series, on its
// goroutine once it has ended; the polls it may still count go to the
// series' shared counter.
func (t *task) foldPolls() {
	if x := t.io.Load(); x != nil && x.pollState == pollsOwn {
		x.polls.Fold(t.label())
		x.pollState = pollsShared
	}
}

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

// The values of taskIO.pollState. The task's goroutine alone reads and
// writes it.
const (
	pollsFirst  uint8 = iota // it has not slept yet
	pollsOnce                // it has slept once; its next sleep starts its own count
	pollsOwn                 // its polls count in taskIO.polls, tracked by its series
	pollsShared              // it has ended: its polls add to its series' counter
)

// The values of a permit (taskIO.permit) that are no sleeping
// goroutine's token.
const (
	permitNone  uintptr = iota // running, no wake pending
	permitReady                // a wake is pending: the next Park returns at once
)

// Park implements core.Backend by blocking the goroutine until Unpark.
func (t *task) Park() {
	t.ct.BeforePark()
	x := t.ioState() // made already if the task blocks through CurrentTask
	if !x.permit.CompareAndSwap(permitReady, permitNone) {
		if x.permit.Load() > permitReady {
			panic(fmt.Sprintf("realtime: two goroutines blocked through the context of task %q at once; "+
				"a task must block only through the Context it was given", t.name()))
		}
		if x.sleep() {
			t.countPoll(x)
		} else {
			x.permit.CompareAndSwap(permitReady, permitNone) // woken before it slept
		}
	}
	t.ct.AfterPark()
}

// Unpark implements core.Backend: it wakes a blocked Park, or makes the
// next one return at once. Safe from any goroutine. If the task has been
// interrupted (an abort, an expired deadline) while blocked in a network
// operation, it also cuts that operation short.
func (t *task) Unpark() {
	x := t.ioState()
	if x.op.Load() != nil && t.ct.InterruptPending() {
		t.interruptIO(x)
	}
	for {
		switch p := x.permit.Load(); p {
		case permitReady:
			return
		case permitNone:
			if x.permit.CompareAndSwap(permitNone, permitReady) {
				return
			}
		default: // asleep: the Unpark that takes the token wakes it
			if x.permit.CompareAndSwap(p, permitNone) {
				x.wake(p)
				return
			}
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
// real I/O it opened is interrupted (a Dial or lookup in progress is
// cancelled; a connection or listener stays open for tasks, and only the
// calls on it of goroutines that are no task's are cut; it is closed at
// shutdown unless the program closes it first), and
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
