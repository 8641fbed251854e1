package deterministic

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/logging"
	"github.com/simrt/simrt/telemetry/metrics"
)

// task is one simulated task: a coroutine plus the scheduling state the
// executor keeps for it.
//
// The layout is for 10,000 tasks resumed in shuffled order, where each
// cache line a resume touches is a miss. A spawned task sits at the start of
// a 64-byte aligned taskWithContext, and a resume through Reschedule reads
// two lines of it: the first holds what the executor and the park read,
// the second the core.Task (flags, backend, waiter pointer) and the first
// words of the task's own Context (its scope, which CurrentTask reads).
// Everything after them is cold. TestTaskLayout pins this.
type task struct {
	// Line 1: the executor's and the park's fields.
	finished bool
	queued   bool
	permit   bool
	parked   bool
	root     bool         // cold, but here it fills padding
	outcome  core.Outcome // cold, likewise
	wake     wakeState    // how the pending park was first woken (see wakeState)
	id       uint64
	next     func() (bool, bool) // resume: (task finished, coroutine alive)
	yield    func(bool) bool     // park: yield(false)
	rt       *runtime
	label    *metrics.TaskLabel
	since    int64  // simulated time of the latest park, for reports
	prio     uint64 // PCT priority (pct.go), read by every sort of the ready list

	// Line 2: ct, then the start of own.
	ct core.Task
	// own is a spawned task's context (ctx points to it); unused by the
	// root. It follows ct so that its scope shares ct's line.
	own Context

	// Cold: what reports, spawn and the end of the task read, and name,
	// which the audit reads on every resume: the label's copy of it, in the
	// first line, measured 8% slower at 2 tasks and no faster at 10,000.
	name   string
	waiter core.Waiter // ct's reusable waiter, in a line of its own: every simulated task waits

	node *supervise.Node // spawn node; nil for the root
	proc *incarnation    // the node process the task belongs to, if any
	fn   func()          // the root's function
	body rtapi.Task      // a spawned task's work, which also takes its outcome ...
	ctx  simrt.Context   // ... and its context (&own)
	co   *coroutine

	panic *core.Panic

	wakeAt int64 // the end of the task's pending sleep, for reports

	prevLive, nextLive *task // live tasks, in id order
}

// Park implements core.Backend: yield to the executor until unparked. A
// park whose deadline passed strictly before the wake that ended it
// unwinds (see wakeState).
func (t *task) Park() {
	t.ct.BeforePark()
	if t.permit {
		t.permit = false
	} else {
		t.parked = true
		t.since = t.rt.now
		t.yield(false)
		t.parked = false
		t.permit = false
		if t.wake != wokeFirst {
			t.resumeWoken()
		}
	}
	t.ct.AfterPark()
}

// Unpark implements core.Backend: queue the task if it is parked.
func (t *task) Unpark() {
	if t.finished {
		return
	}
	if t.permit {
		if t.wake == wokeByDeadline {
			t.rt.noteLaterWake(t)
		}
		return
	}
	t.permit = true
	if t.parked && !t.queued {
		t.queued = true
		t.rt.ready = append(t.rt.ready, t)
		if t.ct.InterruptPending() {
			t.rt.noteDeadlineWake(t)
		}
	}
}

// Yield implements core.Backend: go to the back of the ready list.
func (t *task) Yield() {
	t.ct.BeforePark()
	if !t.queued {
		t.queued = true
		t.rt.ready = append(t.rt.ready, t)
	}
	t.yield(false)
	t.ct.AfterPark()
}

// Abort stops the task (see abortSpawned): it unwinds the next time the
// executor resumes it, and its handle reports ErrClosed at once.
func (t *task) Abort() {
	if t.finished || !t.ct.Abort() {
		return
	}
	t.label.Running.Add(-1)
	if t.body != nil {
		t.body.Done(simrt.ErrClosed)
	}
}

// run runs the task's function on its coroutine and records how it ended.
func (t *task) run() {
	t.outcome, t.panic = t.ct.Call(t.call)
	if t.outcome == core.OutcomePanicked {
		t.rt.logPanic(t.name, t.panic)
	}
}

// logPanic writes the record the production runtime writes for a task's
// panic (realtime's finish): an ERROR "task panicked" with the panic's
// value and stack, through Config.Hooks.LogHandler, stamped like a context's
// record with the simulated time, the seed and the task (see
// Context.Logger). It is written for every panic, caught or not, before the
// runtime reacts to it, so that an uncaught one, which Start re-raises as
// the bare value, is still told with its task and stack. The stack is the
// panic's without what varies from run to run (see stableStack), so that
// one seed still logs the same bytes.
func (rt *runtime) logPanic(task string, p *core.Panic) {
	inner := rt.cfg.Hooks.LogHandler
	if inner == nil {
		inner = slog.NewTextHandler(os.Stderr, nil) // as Context.Logger
	}
	log := slog.New(logging.NewHandler(inner, panicSource{rt: rt, task: task}))
	log.Error("task panicked", "panic", fmt.Sprint(p.Value), "stack", stableStack(p.Stack))
}

// stableStack returns stack, a goroutine's stack as runtime/debug.Stack
// prints it, with the goroutine numbers ("goroutine N") and the argument
// words of each frame ("f(...)") left out: they differ between two runs of
// one seed (goroutines are numbered in creation order across the process,
// arguments hold heap addresses), while the frames and their files and
// lines do not.
func stableStack(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "\t"), l == "":
		case strings.HasPrefix(l, "goroutine "):
			if _, rest, ok := strings.Cut(l, " ["); ok {
				lines[i] = "goroutine N [" + rest
			}
		case strings.HasPrefix(l, "created by "):
			if j := strings.LastIndex(l, " in goroutine "); j >= 0 {
				lines[i] = l[:j] + " in goroutine N"
			}
		case strings.HasSuffix(l, ")"):
			// A frame: the function, then its arguments, which hold no
			// parentheses of their own.
			if j := strings.LastIndexByte(l, '('); j >= 0 {
				lines[i] = l[:j] + "(...)"
			}
		}
	}
	return strings.Join(lines, "\n")
}

// panicSource stamps logPanic's record: the runtime's clock and seed, and
// the name of the task that panicked (which may be unwinding, its context
// no longer usable).
type panicSource struct {
	rt   *runtime
	task string
}

func (s panicSource) Now() time.Time   { return time.Unix(0, s.rt.now).UTC() }
func (s panicSource) Name() simrt.Name { return simrt.Name{Label: s.task} }
func (s panicSource) Seed() uint64     { return s.rt.cfg.Seed }

func (t *task) call() {
	if t.body != nil {
		t.body.Run(t.ctx)
	} else {
		t.fn()
	}
}

// coroutine is an iter.Pull coroutine that runs tasks one after another:
// when a task ends, the coroutine reports it and waits for the next task,
// so spawning reuses a parked goroutine instead of creating one.
type coroutine struct {
	next   func() (bool, bool)
	stop   func()
	yield  func(bool) bool
	t      *task
	labels context.Context // the profiler labels this goroutine carries (watchdog.go)
}

func newCoroutine() *coroutine {
	c := &coroutine{}
	c.next, c.stop = iter.Pull(c.loop)
	return c
}

func (c *coroutine) loop(yield func(bool) bool) {
	c.yield = yield
	for {
		t := c.t
		if c.labels != t.rt.labels { // first task, or moved to another run: see watchdog.go
			c.labels = t.rt.labels
			pprof.SetGoroutineLabels(c.labels)
		}
		t.yield = yield
		t.run()
		if !yield(true) {
			return
		}
	}
}

// maxIdleCoroutines bounds the coroutines a runtime keeps for reuse.
const maxIdleCoroutines = 4096

// start gives t a coroutine, reusing an idle one when there is one.
func (t *task) start() {
	rt := t.rt
	if rt.id == 0 {
		rt.id = core.NewRuntimeID()
	}
	t.ct.SetBackend(t)
	t.ct.SetSequential(rt.id)
	t.ct.SetWaiter(&t.waiter)
	var c *coroutine
	if n := len(rt.idle); n > 0 {
		c = rt.idle[n-1]
		rt.idle[n-1] = nil
		rt.idle = rt.idle[:n-1]
	} else {
		c = newCoroutine()
	}
	c.t = t
	t.co = c
	t.next = c.next
}

// release returns t's coroutine to the pool once t has ended.
func (t *task) release() {
	c := t.co
	if c == nil {
		return
	}
	t.co, t.next, t.yield = nil, nil, nil
	c.t = nil
	if len(t.rt.idle) < maxIdleCoroutines {
		t.rt.idle = append(t.rt.idle, c)
		return
	}
	c.stop()
}

// pooled is what a run leaves in a pool.Coroutines: its idle coroutines
// and the profiler labels they carry (watchdog.go), which every run that
// borrows the pool shares.
type pooled struct {
	idle    []*coroutine
	labels  context.Context
	labelID string
}

var _ pool.Held = (*pooled)(nil)

// Close implements pool.Held: it stops the idle coroutines.
func (p *pooled) Close() {
	for _, c := range p.idle {
		c.stop()
	}
	p.idle = nil
}

// borrow takes the idle coroutines of p, when p is set (Config.Hooks.Coroutines).
func (rt *runtime) borrow(p *pool.Coroutines) {
	if p == nil {
		return
	}
	h, _ := p.Take().(*pooled)
	if h == nil {
		h = &pooled{}
		h.labels, h.labelID = newLabels(h)
	}
	rt.pooled, rt.idle, h.idle = h, h.idle, nil
}

// giveBack returns the run's idle coroutines to its pool, or stops them
// when the run borrowed none.
func (rt *runtime) giveBack() {
	if h := rt.pooled; h != nil {
		h.idle = rt.idle
		rt.cfg.Hooks.Coroutines.Put(h)
	} else {
		for _, c := range rt.idle {
			c.stop()
		}
	}
	rt.idle, rt.pooled = nil, nil
}
