// Package shell implements simrt.Context once for every runtime. A
// runtime (the simulator in package deterministic, production in package
// realtime) supplies a Backend: how a task starts, parks and finds itself,
// its clock and timers, its randomness, its strategy and the storage a
// context opens. The shell does the rest: naming and supervision (Child,
// WithAttribute, Name), shutdown (Stop, Stopped), metrics, the use of a
// context after its runtime finished, the table that turns a task's end
// into its handle's result, the record of the first uncaught panic, the
// audit hooks, and the order of the storage and network layers.
//
// A runtime embeds Context as the first field of its own context type and
// makes every context through Backend.Derive, so that the backend can
// convert a *Context it is handed back to its own type. The smallest use:
//
//	type shellContext = shell.Context // embedded under an unexported name
//
//	type Context struct {
//		shellContext // first field
//		host         netip.Addr
//	}
//
//	rt.Shell.Init("myruntime", rt, nil, abortSpawned) // rt implements Backend
//	root := &Context{}
//	shell.Init(&root.shellContext, rt.Shell.NewScope("", nil), rt.Shell.Tree.Root())
package shell

import (
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/metrics"
)

// Recorder receives the audit events of a runtime's contexts (metric
// registration, encoding, stop). The simulator records them; production
// has none.
type Recorder interface {
	Event(label audit.Label, fields ...[]byte)
}

// Runtime is the part of a runtime that the shell keeps: the supervision
// tree, the shutdown bookkeeping, the metrics registry, whether the runtime
// has finished and the first uncaught panic. A runtime embeds one and calls
// Init before it makes its first context.
type Runtime struct {
	// Registry holds the runtime's metrics, the ones its contexts register
	// among them.
	Registry *metrics.Registry
	// Tasks is the task series (spawned, running, polls) of Registry.
	Tasks *metrics.Tasks
	// Tree is the supervision tree.
	Tree *supervise.Tree
	// Shutdown is the Stop and Stopped bookkeeping.
	Shutdown core.Shutdown[simrt.Signal, *simrt.Signal]
	// OnStop, when set, is called by every Stop with its value and
	// timeout, on the stopping task, before Stop waits (realtime arms its
	// report of the tasks still running when the timeout expires).
	OnStop func(value int, timeout time.Duration)

	name    string // the runtime's package name, for messages
	backend Backend
	rec     Recorder
	done    atomic.Bool
	failure atomic.Pointer[Failure]
}

// Init sets r up for a runtime named name (its package name, which starts
// the shell's panic messages) with backend b and audit recorder rec (nil
// records nothing). abortTask aborts the task held by a spawn node (see
// supervise.New).
func (r *Runtime) Init(name string, b Backend, rec Recorder, abortTask func(*supervise.Node)) {
	r.name, r.backend, r.rec = name, b, rec
	r.Registry = metrics.New()
	r.Tasks = metrics.NewTasks(r.Registry)
	r.Tree = supervise.New(abortTask)
}

// Backend returns the runtime's backend.
func (r *Runtime) Backend() Backend { return r.backend }

// Check panics if the runtime has finished: a context must not escape the
// runtime's Start.
func (r *Runtime) Check() {
	if r.done.Load() {
		panic(r.name + ": context used after its runtime finished (a Context must not escape Start)")
	}
}

// Finish marks the runtime finished: from now on Check panics.
func (r *Runtime) Finish() { r.done.Store(true) }

// event records an audit event, if the runtime audits.
func (r *Runtime) event(label audit.Label, fields ...[]byte) {
	if r.rec != nil {
		r.rec.Event(label, fields...)
	}
}

// NewScope returns a scope of r named name with attributes attrs.
func (r *Runtime) NewScope(name string, attrs []metrics.Attr) *Scope {
	return &Scope{rt: r, name: name, attrs: attrs}
}

// Failure is the first uncaught panic of a run, which Start re-raises.
type Failure struct {
	Task  string // the name of the task that panicked
	Value any    // its panic value
	Stack []byte // its stack
}

// Failure returns the run's first uncaught panic, or nil.
func (r *Runtime) Failure() *Failure { return r.failure.Load() }

// Fail records an uncaught panic of task as the run's failure, unless one
// is recorded already, and reports whether it was recorded.
func (r *Runtime) Fail(task string, p *core.Panic) bool {
	return r.failure.CompareAndSwap(nil, &Failure{Task: task, Value: p.Value, Stack: p.Stack})
}

// End is how a task ended, as Result needs it.
type End struct {
	Task    string       // the task's name
	Outcome core.Outcome // how its function ended
	Panic   *core.Panic  // its panic, for core.OutcomePanicked
	Root    bool         // the task is the runtime's root
	Catch   bool         // the runtime catches the panics of spawned tasks
	Closing bool         // the runtime is shutting down
}

// Result returns what the handle of a task that ended as e reports: nil
// after a return, simrt.ErrClosed after an abort (or runtime.Goexit) and
// after any panic during the shutdown, a *simrt.PanicError after a caught
// panic. An uncaught panic (of the root, or of any task when the runtime
// does not catch them) reports simrt.ErrClosed and is recorded as the
// run's failure (see Fail); first reports that this call recorded it, so
// the runtime must now stop the run.
func (r *Runtime) Result(e End) (err error, first bool) {
	switch e.Outcome {
	case core.OutcomeOK:
		return nil, false
	case core.OutcomePanicked:
		switch {
		case e.Closing:
			return simrt.ErrClosed, false
		case e.Root || !e.Catch:
			return simrt.ErrClosed, r.Fail(e.Task, e.Panic)
		}
		return &simrt.PanicError{Value: e.Panic.Value, Stack: e.Panic.Stack}, false
	}
	return simrt.ErrClosed, false // core.OutcomeAborted, core.OutcomeNone
}

// Scope is the runtime, name and attributes of a context, shared by the
// contexts that have the same: a spawned task's context shares its
// spawner's, and Child and WithAttribute make new ones. Keeping them out
// of Context keeps a task, which holds its context, small.
type Scope struct {
	rt    *Runtime
	name  string
	attrs []metrics.Attr
	label atomic.Pointer[metrics.TaskLabel] // task series for spawns from here, resolved on first use
	prof  atomic.Pointer[pprof.LabelSet]    // simrt_task=<name>, made on first use
}

// Runtime returns the scope's runtime.
func (s *Scope) Runtime() *Runtime { return s.rt }

// Name returns the scope's name.
func (s *Scope) Name() string { return s.name }

// TaskLabel returns the task series of tasks spawned in the scope,
// resolving it on first use.
func (s *Scope) TaskLabel() *metrics.TaskLabel {
	if l := s.label.Load(); l != nil {
		return l
	}
	l := s.rt.Tasks.Label(s.name, "Task")
	s.label.Store(l)
	return l
}

// ProfLabels returns the profiler label set simrt_task=<name> of the
// scope's tasks, made on first use: one per scope rather than one per task
// keeps the work a task does when it first labels its goroutine small.
func (s *Scope) ProfLabels() pprof.LabelSet {
	if l := s.prof.Load(); l != nil {
		return *l
	}
	l := pprof.Labels("simrt_task", s.name)
	s.prof.Store(&l)
	return l
}

// Finished reports whether the runtime has finished (see Finish).
func (r *Runtime) Finished() bool { return r.done.Load() }
