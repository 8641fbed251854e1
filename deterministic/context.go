package deterministic

import (
	"math/rand/v2"
	"net/netip"
	"time"
	"unsafe"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/audit"
)

// Context is the simulator's simrt.Context. The root function receives one;
// spawned tasks receive it as a simrt.Context, and From recovers it. Besides
// the simrt capabilities it offers what only a simulation has: the Auditor,
// DNS registration, storage fault configuration and network controls.
//
// A Context may be used by any task of its runtime, but never after Start
// has returned (that panics) and never from another goroutine.
// shellContext is the shell's context under a name of this package, so
// that Context embeds it as an unexported field: its methods make Context
// a simrt.Context, and nothing else of the shell is reachable from a
// user's Context.
type shellContext = shell.Context

type Context struct {
	shellContext // first field: the runtime's backend converts (see ctxOf)

	rt   *runtime
	task *task        // the task whose own context this is; nil for the root's and nodes'
	host netip.Addr   // the simulated host this context acts as, if set
	proc *incarnation // the node process the context acts for, if any (node.go)
}

var _ simrt.Context = (*Context)(nil)

// ctxOf returns the Context whose shell c is (see shell.Outer).
func ctxOf(c *shell.Context) *Context { return shell.Outer[Context](c) }

var _ = [1]struct{}{}[unsafe.Offsetof(Context{}.shellContext)] // shell.Outer needs the shell first

// From returns the simulator context behind ctx. It panics if ctx does not
// come from this package's runtime.
func From(ctx simrt.Context) *Context { return shell.From[Context](ctx, "deterministic") }

// Seed returns the seed the simulation was configured with (0 when a
// Config.Source replaced the seeded generator).
func (c *Context) Seed() uint64 { return c.rt.cfg.Seed }

// Auditor returns the runtime's auditor.
func (c *Context) Auditor() *Auditor {
	c.rt.check()
	return c.rt.auditor
}

// The runtime is the shell's backend (internal/shell.Backend).
var _ shell.Backend = (*runtime)(nil)

// Derive implements shell.Backend: the new context acts for the same host
// and node process as parent.
func (rt *runtime) Derive(parent *shell.Context, s *shell.Scope, n *supervise.Node) simrt.Context {
	p := ctxOf(parent)
	d := &Context{rt: rt, task: p.task, host: p.host, proc: p.proc}
	shell.Init(&d.shellContext, s, n)
	return d
}

// TaskNode implements shell.Backend: a spawned task's own context gets its
// node below the task's spawn node.
func (rt *runtime) TaskNode(c *shell.Context) *supervise.Node { return ctxOf(c).task.node }

// Spawn implements shell.Backend.
func (rt *runtime) Spawn(c *shell.Context, t rtapi.Task) rtapi.Aborter { return rt.spawn(ctxOf(c), t) }

// CurrentTask implements shell.Backend: the task the executor runs.
func (rt *runtime) CurrentTask(*shell.Context) *core.Task { return &rt.currentTask().ct }

// Holder implements shell.Backend: the task the executor runs, if any.
func (rt *runtime) Holder(*shell.Context) *core.Task {
	if rt.current != nil {
		return &rt.current.ct
	}
	return nil
}

// AfterFunc implements shell.Backend: f runs in the executor, between
// tasks, once d of simulated time has passed (on a node's clock for a
// node's context).
func (rt *runtime) AfterFunc(c *shell.Context, d time.Duration, f func()) rtapi.Timer {
	rt.check()
	if p := ctxOf(c).proc; p != nil {
		return p.afterFunc(d, f)
	}
	return rt.afterFunc(d, nil, f)
}

// Now implements shell.Backend: the simulated time, on a node's clock for
// a node's context.
func (rt *runtime) Now(c *shell.Context) time.Time {
	rt.check()
	if p := ctxOf(c).proc; p != nil {
		return p.now()
	}
	return time.Unix(0, rt.now).UTC()
}

// Sleep implements shell.Backend in simulated time. A sleep that would end
// at or past the end of simulated time (2262, math.MaxInt64 ns after the
// Unix epoch) never ends: the task stays parked until it is aborted.
func (rt *runtime) Sleep(c *shell.Context, d time.Duration) {
	rt.check()
	if p := ctxOf(c).proc; p != nil {
		d = p.global(d) // a node's duration, in global time
	}
	rt.sleepUntil(addTime(rt.now, max(d, 0)))
}

// SleepUntil implements shell.Backend in simulated time. A time before now
// returns at once; a time at or past the end of simulated time (see Sleep)
// never comes.
func (rt *runtime) SleepUntil(c *shell.Context, t time.Time) {
	rt.check()
	if p := ctxOf(c).proc; p != nil {
		rt.sleepUntil(p.untilGlobal(t))
		return
	}
	rt.sleepUntil(simNanos(t))
}

// simNanos is t in simulated nanoseconds since the Unix epoch, clamped to
// [0, never] (time.Time.UnixNano is undefined outside 1678-2262).
func simNanos(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, 0)):
		return 0
	case !t.Before(time.Unix(0, never)):
		return never
	}
	return t.UnixNano()
}

var fieldFillBytes = []byte("fill_bytes")

// Read implements shell.Backend with seeded bytes; it never fails.
func (rt *runtime) Read(p []byte) (int, error) {
	rt.check()
	rt.auditor.Event(audit.Rand, fieldFillBytes)
	rt.stream.read(decision.KindRand, p)
	return len(p), nil
}

// Rand implements shell.Backend: a generator whose every draw is audited.
// All contexts of a runtime share it.
func (rt *runtime) Rand() *rand.Rand {
	rt.check()
	return rt.user
}

// Strategy implements shell.Backend: work runs inline, in order, on the
// calling task, whatever parallelism it plans for.
func (rt *runtime) Strategy(parallelism int) simrt.Strategy { return inline{p: parallelism} }
