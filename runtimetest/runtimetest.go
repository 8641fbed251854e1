// Package runtimetest is the conformance suite every simrt runtime passes:
// tasks and supervision, handles, select, panics, shutdown, clock,
// randomness, metrics and strategies, written once and run against the
// simulator (package deterministic) and the production runtime (package
// realtime). Storage has its own suite in storage/storagetest, the network
// in network/nettest.
//
// A runtime describes itself once as a suite.Runtime, in its own tests,
// and runs every case, as subtests:
//
//	func TestConformance(t *testing.T) {
//		runtimetest.Run(t, suite.Runtime{
//			Simulated: true,
//			Stalled:   deterministic.ErrStalled,
//			TimedOut:  deterministic.ErrRunTimeout,
//			Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
//				cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
//				deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
//			},
//		})
//	}
//
// or, from a runner other than go test, through Test, which returns the
// failures as an error.
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
// time. What depends on the runtime is stated by suite.Runtime.Simulated:
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
//     suite.Runtime.TimedOut, once its tasks have unwound. A simulator also stops a
//     run in which no task can progress and no timer is pending, with an
//     error matching suite.Runtime.Stalled; a production runtime waits for the
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

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/suite"
)

// Runner is the runtime under test as a case sees it: the suite.Runtime
// given to Run or Test, with the helpers that start a run.
type Runner struct{ suite.Runtime }

// Options configures the runtime of one case (see suite.Options).
type Options = suite.Options

// T is what a case reports through (see suite.T).
type T = suite.T

// testCase is one rule of the suite.
type testCase struct {
	name  string // the reference test's name in Go form
	rule  string // what the case checks, logged on failure
	check func(t T, r Runner)
}

// cases lists every case in the order Run runs them; each topic file adds
// its own.
var cases = concat(taskCases, handleCases, selectCases, panicCases,
	shutdownCases, clockCases, timeRangeCases, simulationCases, metricCases, strategyCases,
	adaptiveCases, unbufferedCases, syncCases, tickerCases, goContextCases,
	interruptCases, propertyCases, handoffCases, spawnAbortCases, wakeupCases)

func concat(lists ...[]testCase) []testCase {
	var all []testCase
	for _, l := range lists {
		all = append(all, l...)
	}
	return all
}

// Run runs every case of the suite as a subtest of t, each on a fresh
// runtime started through rt. It panics if rt.Run or rt.TimedOut is nil,
// or if rt is Simulated and rt.Stalled is nil.
func Run(t *testing.T, rt suite.Runtime) {
	t.Helper()
	suite.Run(t, rt, suiteCases(rt))
}

// Test runs every case of the suite, each on a fresh runtime started
// through rt, and returns their failures as one error (nil if every case
// passed), for runners other than go test. It panics as Run does.
func Test(rt suite.Runtime) error { return suite.Test(rt, suiteCases(rt)) }

// suiteCases binds every case to rt.
func suiteCases(rt suite.Runtime) []suite.Case {
	if rt.TimedOut == nil {
		panic("runtimetest: Runtime.TimedOut is nil (the error a run timeout's verdict matches)")
	}
	r := Runner{rt}
	var all []suite.Case
	for _, c := range cases {
		all = append(all, suite.Case{Name: c.name, Rule: c.rule, Check: func(t T) { c.check(t, r) }})
	}
	return all
}

// run starts root and fails the test if Start panics.
func (r Runner) run(t T, opts Options, root func(ctx simrt.Context)) {
	t.Helper()
	if v, panicked := r.runPanics(t, opts, root); panicked {
		t.Fatalf("Start panicked: %v", v)
	}
}

// runPanics starts root and returns the value Start panicked with, if it
// did.
func (r Runner) runPanics(t T, opts Options, root func(ctx simrt.Context)) (v any, panicked bool) {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = suite.DefaultTimeout
	}
	defer func() {
		if panicked {
			v = recover()
		}
	}()
	panicked = true
	r.Run(t, opts, root)
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
