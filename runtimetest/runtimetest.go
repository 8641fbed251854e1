// Package runtimetest is the conformance suite every simrt runtime passes:
// tasks and supervision, handles, select, panics, shutdown, clock,
// randomness, metrics and strategies, written once and run against the
// simulator (package deterministic) and the production runtime (package
// realtime). Storage has its own suite in storage/storagetest, the network
// in network/nettest.
//
// A runtime adapts its runner in a few lines and runs every case:
//
//	func TestConformance(t *testing.T) {
//		runtimetest.Run(t, runtimetest.Runner{
//			Simulated: true,
//			Stalled:   deterministic.ErrStalled,
//			TimedOut:  deterministic.ErrRunTimeout,
//			Start: func(t *testing.T, o runtimetest.Options, root func(simrt.Context)) {
//				cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
//				deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
//			},
//		})
//	}
//
// Each case is a subtest named after the test of commonware-runtime (the
// Rust crate simrt ports, "the reference" below) it ports
// (test_spawn_abort_on_parent_completion becomes
// SpawnAbortOnParentCompletion) or, for rules simrt adds, after the rule
// itself. On failure the case logs the rule it checks.
//
// # Supervision in Go
//
// simrt.Spawn gives every task its own supervision node below the node of
// the context it was spawned from. When a task ends, for any reason, every
// task it spawned (directly, or from contexts derived from its own) is
// aborted. Tasks spawned from one context, or from sibling Child contexts,
// are independent of each other: one ending aborts none of the others. This
// differs from the reference, where a finishing task also aborts tasks
// spawned from its parent's earlier Child contexts; the Go rule is the one
// the design document fixes and the suite checks.
//
// # Handles
//
// A task's handle completes when the runtime reports the task's outcome, after
// its bookkeeping: once Await has returned a task's value, the task no longer
// counts in runtime_tasks_running and its StopSignals are released. Abort
// takes a task out of runtime_tasks_running at once, before it unwinds.
//
// # Where runtimes differ
//
// The cases are the same for every runtime and never assert on elapsed wall
// time. What depends on the runtime is stated by Runner.Simulated:
//
//   - Time: a simulated clock starts at the Unix epoch and a Sleep(d) moves
//     it by exactly d; a real clock only guarantees that at least d passed.
//   - Randomness: a simulator draws from the seeded generator, so one seed
//     gives the same bytes every run; production draws from crypto/rand.
//   - Schedules: a simulator run twice with one seed interleaves its tasks
//     the same way and ends with the same metric text, byte for byte.
//   - Deadlocks and run timeouts: every runtime stops a run that goes on
//     past Options.Timeout (simulated time for a simulator, wall time in
//     production) with a verdict, a panic whose value is an error matching
//     Runner.TimedOut, once its tasks have unwound. A simulator also stops a
//     run in which no task can progress and no timer is pending, with an
//     error matching Runner.Stalled; a production runtime waits for the
//     timeout instead. Only a simulation can make a function and its
//     Timeout finish at the same instant.
//
// # Reference tests without a Go form
//
//   - Execution modes: simrt has no dedicated or blocking spawns, so the
//     reference's Shared(true) and Dedicated variants fold into the plain
//     cases, and task metrics always carry execution="Shared".
//   - Metric lifetimes: client_golang collectors are never unregistered, so
//     the reference's drop-removes-metric cases have no Go form; the Go
//     rule is that registering again returns the collector already there.
//   - Buffer pools: simrt passes plain []byte, so test_buffer_pooler has no
//     Go form; the read and write option cases belong to storagetest.
package runtimetest

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// Runner tells the suite how to run one runtime.
type Runner struct {
	// Start builds a fresh runtime configured by opts, runs root as its root
	// task and returns once the runtime has finished: root has returned and
	// every other task has unwound. When the runtime re-raises a panic (the
	// root's own, or a task's while CatchPanics is off) Start must let it
	// propagate with the original value, after that cleanup.
	//
	// Start is called once per case, on the test's goroutine; t is the
	// case's test (for t.TempDir, t.Cleanup or leak checks).
	Start func(t *testing.T, opts Options, root func(ctx simrt.Context))

	// Simulated says that the runtime simulates time, draws randomness from
	// Options.Seed and detects deadlocks; see the package documentation. A
	// simulated runtime's clock starts at the Unix epoch.
	Simulated bool

	// TimedOut is the verdict of every runtime on a run that goes on past
	// Options.Timeout of its own time: Start panics with an error matching
	// it (errors.Is) once the run's tasks have unwound. For the simulator
	// it is deterministic.ErrRunTimeout, for production
	// realtime.ErrRunTimeout.
	TimedOut error

	// Stalled is the verdict of a Simulated runtime when no task can make
	// progress and no timer is pending: Start panics with an error matching
	// it. For the simulator it is deterministic.ErrStalled. A runtime that
	// is not Simulated leaves it nil.
	Stalled error

	// Skip lists cases to skip, by subtest name, with the reason. It is
	// meant for a runtime that is still being written; a finished runtime
	// leaves it empty.
	Skip map[string]string
}

// Options configures the runtime of one case. The suite fills it in; Start
// maps it onto the runtime's own configuration.
type Options struct {
	// CatchPanics makes a task's panic an error from its handle (a
	// *simrt.PanicError matching simrt.ErrExited) instead of stopping the
	// run. The root's own panic always propagates out of Start.
	CatchPanics bool
	// Seed seeds a simulated runtime's generator. Runtimes that are not
	// Simulated ignore it.
	Seed uint64
	// Timeout bounds the run in the runtime's own time, so that a broken
	// runtime fails a case instead of hanging it: once this much time has
	// passed (simulated time for a Simulated runtime, wall time otherwise),
	// the runtime aborts the run and Start panics with its Runner.TimedOut
	// verdict after its tasks have unwound. The suite always sets it.
	Timeout time.Duration
}

// defaultTimeout is the time budget of every case. No case comes close to
// it; it only turns a hang into a failure.
const defaultTimeout = time.Minute

// testCase is one rule of the suite.
type testCase struct {
	name  string // the reference test's name in Go form
	rule  string // what the case checks, logged on failure
	check func(t *testing.T, r Runner)
}

// cases lists every case in the order Run runs them; each topic file adds
// its own.
var cases = concat(taskCases, handleCases, selectCases, panicCases,
	shutdownCases, clockCases, timeRangeCases, simulationCases, metricCases, strategyCases,
	paceCases, adaptiveCases, unbufferedCases, syncCases, tickerCases, goContextCases,
	interruptCases, propertyCases, handoffCases, spawnAbortCases, wakeupCases)

func concat(lists ...[]testCase) []testCase {
	var all []testCase
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

// Run runs every case of the suite as a subtest of t, each on a fresh
// runtime started through r. It panics if r.Start or r.TimedOut is nil, or
// if r is Simulated and r.Stalled is nil.
func Run(t *testing.T, r Runner) {
	if r.Start == nil {
		panic("runtimetest.Run: Runner.Start is nil")
	}
	if r.TimedOut == nil {
		panic("runtimetest.Run: Runner.TimedOut is nil (the error a run timeout's verdict matches)")
	}
	if r.Simulated && r.Stalled == nil {
		panic("runtimetest.Run: a Simulated Runner needs Stalled (the error a stall's verdict matches)")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if why, ok := r.Skip[c.name]; ok {
				t.Skip(why)
			}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("rule: %s", c.rule)
				}
			})
			c.check(t, r)
		})
	}
}

// run starts root and fails the test if Start panics.
func (r Runner) run(t *testing.T, opts Options, root func(ctx simrt.Context)) {
	t.Helper()
	if v, panicked := r.runPanics(t, opts, root); panicked {
		t.Fatalf("Start panicked: %v", v)
	}
}

// runPanics starts root and returns the value Start panicked with, if it
// did.
func (r Runner) runPanics(t *testing.T, opts Options, root func(ctx simrt.Context)) (v any, panicked bool) {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = defaultTimeout
	}
	defer func() {
		if panicked {
			v = recover()
		}
	}()
	panicked = true
	r.Start(t, opts, root)
	panicked = false
	return nil, false
}

// parkForever parks the calling task until it is aborted.
func parkForever(ctx simrt.Context) { simrt.Select(ctx) }

// catchPanic runs f and returns the value it panicked with, or nil.
func catchPanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
