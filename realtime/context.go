package realtime

import (
	crand "crypto/rand"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/logging"
)

// Context is the production runtime's simrt.Context. Each task receives
// one, as a simrt.Context; From recovers it. Besides the simrt
// capabilities it offers a Logger and the address of the metrics endpoint.
//
// A Context belongs to the task it was given to (and Child and
// WithAttribute keep that task): a blocking call made through it parks
// that task. Its non-blocking methods may be called from any goroutine,
// but a task must block only through its own Context: blocking through
// another task's Context panics if both block at once, or once that task
// has ended. Using a Context after Start has returned panics.
// shellContext is the shell's context under a name of this package, so
// that Context embeds it as an unexported field: its methods make Context
// a simrt.Context, and nothing else of the shell is reachable from a
// user's Context.
type shellContext = shell.Context

type Context struct {
	shellContext       // first field: the runtime's backend converts (see ctxOf)
	task         *task // the task the context belongs to
}

var _ simrt.Context = (*Context)(nil)

// ctxOf returns the Context whose shell c is (see shell.Outer).
func ctxOf(c *shell.Context) *Context { return shell.Outer[Context](c) }

var _ = [1]struct{}{}[unsafe.Offsetof(Context{}.shellContext)] // shell.Outer needs the shell first

// From returns the production context behind ctx. It panics if ctx does not
// come from this package's runtime.
func From(ctx simrt.Context) *Context { return shell.From[Context](ctx, "realtime") }

// rt returns the context's runtime.
func (c *Context) rt() *runtime { return shell.ScopeOf(&c.shellContext).Runtime().Backend().(*runtime) }

// Logger returns the runtime's logger (Config.Logger) through a
// telemetry/logging handler: every record carries the name of this
// context's task (attribute task) and the runtime's time. System code that
// must not import realtime builds the same logger with logging.NewHandler.
func (c *Context) Logger() *slog.Logger {
	return slog.New(logging.NewHandler(c.rt().log.Handler(), c))
}

// The runtime is the shell's backend (internal/shell.Backend).
var _ shell.Backend = (*runtime)(nil)

// Derive implements shell.Backend: the new context belongs to parent's
// task.
func (rt *runtime) Derive(parent *shell.Context, s *shell.Scope, n *supervise.Node) simrt.Context {
	d := &Context{task: ctxOf(parent).task}
	shell.Init(&d.shellContext, s, n)
	return d
}

// TaskNode implements shell.Backend: a task's own context gets its node
// below the task's spawn node.
func (rt *runtime) TaskNode(c *shell.Context) *supervise.Node { return &ctxOf(c).task.node }

// Spawn implements shell.Backend. The task runs on a new goroutine. Once
// shutdown has begun, the handle is closed at once.
func (rt *runtime) Spawn(c *shell.Context, t rtapi.Task) rtapi.Aborter {
	return rt.spawn(ctxOf(c), t, nil)
}

// Holder implements shell.Backend: the signal is released when the task
// owning the context ends, if not before.
func (rt *runtime) Holder(c *shell.Context) *core.Task { return &ctxOf(c).task.ct }

// Now implements shell.Backend: the wall clock.
func (rt *runtime) Now(*shell.Context) time.Time { return time.Now() }

// Sleep implements shell.Backend on the wall clock.
func (rt *runtime) Sleep(c *shell.Context, d time.Duration) {
	if d <= 0 {
		rt.CurrentTask(c)
		return
	}
	rt.SleepUntil(c, time.Now().Add(d))
}

// SleepUntil implements shell.Backend on the wall clock.
func (rt *runtime) SleepUntil(c *shell.Context, at time.Time) {
	t := rt.CurrentTask(c)
	d := time.Until(at)
	if d <= 0 {
		return
	}
	tm := time.AfterFunc(d, t.Unpark)
	defer tm.Stop()
	for {
		t.Park()
		d = time.Until(at)
		if d <= 0 {
			return
		}
		tm.Reset(d) // a spurious wake, or the wall clock moved back
	}
}

// CurrentTask implements shell.Backend: the task that owns the context.
// It panics if that task has ended (the context escaped its task).
func (rt *runtime) CurrentTask(c *shell.Context) *core.Task {
	rt.sh.Check()
	t := ctxOf(c).task
	if t.hasEnded() {
		panic(fmt.Sprintf("realtime: blocking call through the context of task %q, which has ended; "+
			"a task must block only through the Context it was given", t.name()))
	}
	if !t.marked() {
		t.markGoroutine() // blocking through its own context: this is its goroutine
	}
	return &t.ct
}

// AfterFunc implements shell.Backend with a wall-clock timer; f runs on
// its own goroutine.
func (rt *runtime) AfterFunc(_ *shell.Context, d time.Duration, f func()) rtapi.Timer {
	rt.sh.Check()
	return time.AfterFunc(d, f)
}

// Read implements shell.Backend with crypto/rand; it never fails.
func (rt *runtime) Read(p []byte) (int, error) { return crand.Read(p) }

// Rand implements shell.Backend: a generator over crypto/rand, safe for
// concurrent use. All contexts of a runtime share it.
func (rt *runtime) Rand() *rand.Rand { return rt.rand }

// Strategy implements shell.Backend: work runs on the runtime's bounded
// worker pool (Config.Parallelism workers in all) with the calling
// goroutine taking part, so a strategy never waits for a free worker and a
// nested strategy with no free worker runs inline. A panic in the work is
// re-raised, with its original value, from ForEach.
func (rt *runtime) Strategy(parallelism int) simrt.Strategy {
	return &strategy{p: parallelism, pool: rt.pool}
}

// Storage implements shell.Backend: every context opens blobs on the one
// stack (storage.go).
func (rt *runtime) Storage(*shell.Context) simrt.Storage { return rt.storage }
