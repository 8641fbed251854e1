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
	"github.com/simrt/simrt/telemetry/metrics"
)

// Permit states of a task (see Park and Unpark).
const (
	permitNone   int32 = iota // running, no wake pending
	permitReady               // a wake is pending: the next Park returns at once
	permitParked              // blocked in Park, waiting on wake
)

// task is one production task: a goroutine that parks by blocking on a
// channel. The channel is made on the first Park, so a task that never
// parks costs no channel.
type task struct {
	ct    core.Task
	rt    *runtime
	label *metrics.TaskLabel
	node  *supervise.Node         // spawn node; nil for the root
	work  simrt.Task              // the spawned work, which also takes the outcome; nil for the root
	ctx   Context                 // the context the task receives
	wake  chan struct{}           // made by the task's goroutine before it first parks
	io    atomic.Pointer[closers] // real I/O this task opened, closed if it is aborted

	// The network operation this task is taken to be blocked in, cut
	// short if the task is interrupted (see interrupt.go).
	ioMu     sync.Mutex
	ioOp     atomic.Pointer[ioTarget] // written under ioMu
	marker   atomic.Pointer[struct{}] // its goroutine's own profiler label set, once it has opened I/O
	unmarked unsafe.Pointer           // the label set the goroutine had before, for tasks it spawns
	spawner  *task                    // the task whose context spawned this one, until it starts

	permit   atomic.Int32
	ended    atomic.Bool // the task's function has returned or unwound
	released atomic.Bool // the running gauge has been decremented
	root     bool

	// Written by the task's goroutine only, read after it ends.
	outcome core.Outcome
	panic   *core.Panic
}

func newTask(rt *runtime, name string, label *metrics.TaskLabel, work simrt.Task) *task {
	t := &task{rt: rt, label: label, work: work}
	t.ct.SetBackend(t)
	t.ct.Name = name
	return t
}

func (t *task) name() string { return t.ct.Name }

// closers returns the task's I/O set, making it on first use.
func (t *task) closers() *closers {
	if s := t.io.Load(); s != nil {
		return s
	}
	t.io.CompareAndSwap(nil, &closers{})
	return t.io.Load()
}

// Park implements core.Backend by blocking the goroutine until Unpark.
func (t *task) Park() {
	t.ct.BeforePark()
	defer t.ct.AfterPark()
	if t.permit.CompareAndSwap(permitReady, permitNone) {
		return
	}
	if t.wake == nil {
		t.wake = make(chan struct{}, 1)
	}
	if !t.permit.CompareAndSwap(permitNone, permitParked) {
		if t.permit.Load() == permitParked {
			panic(fmt.Sprintf("realtime: two goroutines blocked through the context of task %q at once; "+
				"a task must block only through the Context it was given", t.name()))
		}
		t.permit.CompareAndSwap(permitReady, permitNone) // woken meanwhile
		return
	}
	<-t.wake
	t.label.Polls.Add(1)
}

// Unpark implements core.Backend: it wakes a blocked Park, or makes the
// next one return at once. Safe from any goroutine. If the task has been
// interrupted (an abort, an expired deadline) while blocked in a network
// operation, it also cuts that operation short.
func (t *task) Unpark() {
	if t.ioOp.Load() != nil && t.ct.InterruptPending() {
		t.interruptIO()
	}
	for {
		switch t.permit.Load() {
		case permitReady:
			return
		case permitNone:
			if t.permit.CompareAndSwap(permitNone, permitReady) {
				return
			}
		case permitParked:
			if t.permit.CompareAndSwap(permitParked, permitNone) {
				t.wake <- struct{}{} // never blocks: one slot, one parked receiver
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

// Abort implements supervise.Aborter: the task unwinds at its next park,
// real I/O it opened is interrupted (so a blocked read or write returns;
// it is closed at shutdown unless the program closes it first), and
// its handle reports ErrClosed at once.
func (t *task) Abort() {
	if t.ended.Load() || !t.ct.Abort() {
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
func (t *task) releaseGauge() {
	if t.released.CompareAndSwap(false, true) {
		t.label.Running.Add(-1)
	}
}

// call runs f and records how it ended.
func (t *task) call(f func()) {
	t.outcome, t.panic = t.ct.Call(func() {
		t.label.Polls.Add(1)
		f()
	})
}

var _ core.Backend = (*task)(nil)
var _ supervise.Aborter = (*task)(nil)
