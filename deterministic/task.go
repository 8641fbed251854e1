package deterministic

import (
	"iter"
	"runtime/debug"

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

// task is one simulated task: a coroutine plus the scheduling state the
// executor keeps for it.
type task struct {
	// Hot fields first: every resume touches them, and with 10,000 tasks in
	// shuffled order each cold cache line costs a miss.
	finished bool
	queued   bool
	permit   bool
	parked   bool
	id       uint64
	next     func() (struct{}, bool)
	yield    func(struct{}) bool
	rt       *runtime
	name     string
	label    *metrics.TaskLabel
	ct       core.Task

	root bool
	node *supervise.Node // spawn node; nil for the root
	fn   func()
	done func(error) // reports the outcome to the handle
	stop func()

	outcome    outcome
	panicValue any
	panicStack []byte

	prevLive, nextLive *task // live tasks, in id order
}

// Park implements core.Backend: yield to the executor until unparked.
func (t *task) Park() {
	if t.permit {
		t.permit = false
		return
	}
	t.parked = true
	t.yield(struct{}{})
	t.parked = false
	t.permit = false
}

// Unpark implements core.Backend: queue the task if it is parked.
func (t *task) Unpark() {
	if t.finished || t.permit {
		return
	}
	t.permit = true
	if t.parked && !t.queued {
		t.queued = true
		t.rt.ready = append(t.rt.ready, t)
	}
}

// Yield implements core.Backend: go to the back of the ready list.
func (t *task) Yield() {
	if !t.queued {
		t.queued = true
		t.rt.ready = append(t.rt.ready, t)
	}
	t.yield(struct{}{})
}

// Abort implements supervise.Aborter: the task unwinds the next time the
// executor resumes it, and its handle reports ErrClosed at once.
func (t *task) Abort() {
	if t.finished || !t.ct.Abort() {
		return
	}
	t.label.Running.Add(-1)
	if t.done != nil {
		t.done(simrt.ErrClosed)
	}
}

// body is the coroutine: run the function, record how it ended.
func (t *task) body(yield func(struct{}) bool) {
	t.yield = yield
	defer t.recover()
	if t.ct.IsAborted() {
		t.outcome = outcomeAborted
		return
	}
	t.fn()
	t.outcome = outcomeOK
}

func (t *task) recover() {
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
}

func (t *task) start() {
	t.ct.SetBackend(t)
	t.ct.Name = t.name
	t.next, t.stop = iter.Pull(t.body)
}
