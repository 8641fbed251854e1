package realtime

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/telemetry/metrics"
)

type outcome uint8

const (
	outcomeNone     outcome = iota // still running, or ended by runtime.Goexit
	outcomeOK                      // the function returned
	outcomeAborted                 // unwound by an abort, or never started
	outcomePanicked                // panicked
)

// task is one production task: a goroutine that parks by blocking on a
// one-slot channel (the permit).
type task struct {
	ct     core.Task
	rt     *runtime
	name   string
	root   bool
	label  *metrics.TaskLabel
	node   *supervise.Node // spawn node; nil for the root
	done   func(error)     // reports the outcome to the handle; never changes
	permit chan struct{}

	parked   atomic.Bool // a goroutine is blocked in Park
	ended    atomic.Bool // the task's function has returned or unwound
	released atomic.Bool // the running gauge has been decremented

	io closers // real I/O this task opened, closed if it is aborted

	// Written by the task's goroutine only, read after it ends.
	outcome    outcome
	panicValue any
	panicStack []byte
}

func newTask(rt *runtime, name string, label *metrics.TaskLabel, done func(error)) *task {
	t := &task{rt: rt, name: name, label: label, done: done, permit: make(chan struct{}, 1)}
	t.ct.SetBackend(t)
	t.ct.Name = name
	return t
}

// Park implements core.Backend by blocking the goroutine until Unpark.
func (t *task) Park() {
	if !t.parked.CompareAndSwap(false, true) {
		panic(fmt.Sprintf("realtime: two goroutines blocked through the context of task %q at once; "+
			"a task must block only through the Context it was given", t.name))
	}
	<-t.permit
	t.parked.Store(false)
	t.label.Polls.Add(1)
}

// Unpark implements core.Backend: it leaves the permit, waking a blocked
// Park or making the next one return at once.
func (t *task) Unpark() {
	select {
	case t.permit <- struct{}{}:
	default:
	}
}

// Yield implements core.Backend by letting other goroutines run.
func (t *task) Yield() { goruntime.Gosched() }

// Abort implements supervise.Aborter: the task unwinds at its next park,
// real I/O it opened is closed (so a blocked read or write returns), and
// its handle reports ErrClosed at once.
func (t *task) Abort() {
	if t.ended.Load() || !t.ct.Abort() {
		return
	}
	t.io.closeAll()
	t.releaseGauge()
	if t.done != nil {
		t.done(simrt.ErrClosed)
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
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if core.IsAbort(r) {
			t.outcome = outcomeAborted
			return
		}
		t.outcome = outcomePanicked
		t.panicValue = r
		t.panicStack = debug.Stack()
	}()
	if t.ct.IsAborted() {
		t.outcome = outcomeAborted
		return
	}
	t.label.Polls.Add(1)
	f()
	t.outcome = outcomeOK
}

var _ core.Backend = (*task)(nil)
var _ supervise.Aborter = (*task)(nil)
