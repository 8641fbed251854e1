// Package suite is the one harness shape of simrt's conformance suites
// (runtimetest, network/nettest, storage/storagetest): a runtime under test
// runs each case as a task, and every suite has the two entry points of
// testing/slogtest, one that runs its cases as subtests and one that
// returns their failures as an error, for runners other than go test.
//
// A runtime describes itself once, as a Runtime, in its own tests:
//
//	var sim = suite.Runtime{
//		Simulated: true,
//		Stalled:   deterministic.ErrStalled,
//		TimedOut:  deterministic.ErrRunTimeout,
//		Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
//			cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
//			deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
//		},
//	}
//
// and runs every suite on it: runtimetest.Run(t, sim); a network or a
// storage passes the runtime its tasks run on and a constructor of the
// device under test (nettest.Run(t, sim, newNetwork), storagetest.Run(t,
// sim, newStorage)). A suite imports no runtime: what differs between
// runtimes is stated by Runtime's fields.
package suite

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// T is what a case reports through: the subset of testing.TB the suites
// use. A *testing.T is one (Run); Test supplies its own. As in package
// testing, FailNow, Fatal, Fatalf, Skip, Skipf and SkipNow end the
// goroutine that calls them.
type T interface {
	Cleanup(f func())
	Error(args ...any)
	Errorf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Skip(args ...any)
	SkipNow()
	Skipf(format string, args ...any)
	Skipped() bool
	TempDir() string
}

var _ T = (*testing.T)(nil)

// Options configures the runtime of one case. The suite fills it in;
// Runtime.Run maps it onto the runtime's own configuration.
type Options struct {
	// CatchPanics makes a task's panic an error from its handle (a
	// *simrt.PanicError matching simrt.ErrExited) instead of stopping the
	// run. The root's own panic always propagates out of Run.
	CatchPanics bool
	// Seed seeds a simulated runtime's generator. Runtimes that are not
	// Simulated ignore it.
	Seed uint64
	// Timeout bounds the run in the runtime's own time, so that a broken
	// runtime fails a case instead of hanging it: once this much time has
	// passed (simulated time for a Simulated runtime, wall time otherwise),
	// the runtime aborts the run and Run panics with its TimedOut verdict
	// after its tasks have unwound. The suites always set it.
	Timeout time.Duration
}

// DefaultTimeout is the Options.Timeout of a case that sets none. No case
// comes close to it; it only turns a hang into a failure.
const DefaultTimeout = time.Minute

// Runtime is a runtime under test: it runs a case as a task.
type Runtime struct {
	// Run builds a fresh runtime configured by opts, runs root as its root
	// task and returns once the runtime has finished: root has returned and
	// every other task has unwound. When the runtime re-raises a panic (the
	// root's own, or a task's while CatchPanics is off) Run must let it
	// propagate with the original value, after that cleanup.
	//
	// Run is called once or more per case, on the case's goroutine; t is
	// the case's test (for t.TempDir or t.Cleanup).
	Run func(t T, opts Options, root func(ctx simrt.Context))

	// Simulated says that the runtime simulates time, draws randomness from
	// Options.Seed and detects deadlocks (see runtimetest's documentation).
	// A simulated runtime's clock starts at the Unix epoch.
	Simulated bool

	// TimedOut is the verdict of the runtime on a run that goes on past
	// Options.Timeout of its own time: Run panics with an error matching it
	// (errors.Is) once the run's tasks have unwound. runtimetest needs it.
	TimedOut error

	// Stalled is the verdict of a Simulated runtime when no task can make
	// progress and no timer is pending: Run panics with an error matching
	// it. A runtime that is not Simulated leaves it nil.
	Stalled error

	// Skip lists cases to skip, by name, with the reason. It is meant for a
	// runtime that is still being written; a finished runtime leaves it
	// empty.
	Skip map[string]string
}

// Case is one rule of a suite, bound to the runtime (and device) it runs
// on.
type Case struct {
	Name string
	// Rule says what the case checks; it is logged when the case fails.
	Rule string
	// Check runs the case, reporting through t.
	Check func(t T)
}

// Run runs every case as a subtest of t, in order, skipping those
// rt.Skip lists. Suites call it from their own Run.
func Run(t *testing.T, rt Runtime, cases []Case) {
	t.Helper()
	checkRuntime(rt)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := rt.Skip[c.Name]; ok {
				t.Skip(why)
			}
			t.Cleanup(func() {
				if t.Failed() && c.Rule != "" {
					t.Logf("rule: %s", c.Rule)
				}
			})
			c.Check(t)
		})
	}
}

// Test runs every case, in order, each on a goroutine of its own, skipping
// those rt.Skip lists, and returns the failures joined in one error (nil
// if every case passed): one error per failed case, naming it and holding
// what it reported. A case that panics fails. Suites call it from their
// own Test.
func Test(rt Runtime, cases []Case) error {
	checkRuntime(rt)
	var errs []error
	for _, c := range cases {
		if _, ok := rt.Skip[c.Name]; ok {
			continue
		}
		r := &recorder{name: c.Name}
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer r.cleanup()
			defer func() {
				if v := recover(); v != nil {
					r.report(true, fmt.Sprintf("panic: %v\n%s", v, debug.Stack()))
				}
			}()
			c.Check(r)
		}()
		<-done
		if err := r.err(c.Rule); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func checkRuntime(rt Runtime) {
	if rt.Run == nil {
		panic("suite: Runtime.Run is nil")
	}
	if rt.Simulated && rt.Stalled == nil {
		panic("suite: a Simulated Runtime needs Stalled (the error a stall's verdict matches)")
	}
}

// recorder is the T of Test: it keeps what a case reports.
type recorder struct {
	name     string
	mu       sync.Mutex
	lines    []string
	failed   bool
	skipped  bool
	cleanups []func()
}

var _ T = (*recorder)(nil)

func (r *recorder) report(fail bool, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	if fail {
		r.failed = true
	}
}

func (r *recorder) err(rule string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failed {
		return nil
	}
	lines := r.lines
	if rule != "" {
		lines = append(lines, "rule: "+rule)
	}
	return fmt.Errorf("%s:\n\t%s", r.name, strings.Join(lines, "\n\t"))
}

// cleanup runs the registered cleanups, the last registered first.
func (r *recorder) cleanup() {
	for {
		r.mu.Lock()
		n := len(r.cleanups)
		if n == 0 {
			r.mu.Unlock()
			return
		}
		f := r.cleanups[n-1]
		r.cleanups = r.cleanups[:n-1]
		r.mu.Unlock()
		f()
	}
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recorder) Error(args ...any) { r.report(true, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.report(true, fmt.Sprintf(format, args...))
}
func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *recorder) FailNow() {
	r.Fail()
	runtime.Goexit()
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *recorder) Fatal(args ...any) {
	r.Error(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Helper()                          {}
func (r *recorder) Log(args ...any)                  { r.report(false, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)  { r.report(false, fmt.Sprintf(format, args...)) }
func (r *recorder) Name() string                     { return r.name }
func (r *recorder) Skip(args ...any)                 { r.Log(args...); r.SkipNow() }
func (r *recorder) Skipf(format string, args ...any) { r.Logf(format, args...); r.SkipNow() }
func (r *recorder) SkipNow() {
	r.mu.Lock()
	r.skipped = true
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// TempDir returns a new directory, removed when the case ends.
func (r *recorder) TempDir() string {
	dir, err := os.MkdirTemp("", "simrt-suite-")
	if err != nil {
		r.Fatalf("TempDir: %v", err)
	}
	r.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
