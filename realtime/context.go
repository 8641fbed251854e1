package realtime

import (
	crand "crypto/rand"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/logging"
	"github.com/simrt/simrt/telemetry/metrics"
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
type Context struct {
	task  *task
	scope *scope
	node  atomic.Pointer[supervise.Node] // nil in a task's own context until first needed
}

// scope is the runtime, name and attributes of a context, shared by the
// contexts that have the same: a spawned task's context shares its
// spawner's, and Child and WithAttribute make new ones. Keeping them out of
// Context keeps a task, which holds its context, small.
type scope struct {
	rt    *runtime
	name  string
	attrs []metrics.Attr
	label atomic.Pointer[metrics.TaskLabel] // task series for spawns from here, resolved on first use
	prof  atomic.Pointer[pprof.LabelSet]    // simrt_task=<name>, for the goroutines of its tasks (see markGoroutine)
}

// profLabels returns the profiler label set of the scope's tasks, made on
// first use: one per scope rather than one per task keeps the work a task
// does when it first blocks (deep in its stack) small.
func (s *scope) profLabels() pprof.LabelSet {
	if l := s.prof.Load(); l != nil {
		return *l
	}
	l := pprof.Labels("simrt_task", s.name)
	s.prof.Store(&l)
	return l
}

// newContext returns a context of task t on node n, with a new scope.
func newContext(rt *runtime, t *task, name string, attrs []metrics.Attr, n *supervise.Node) *Context {
	c := &struct {
		ctx   Context
		scope scope
	}{} // one allocation
	c.scope.rt, c.scope.name, c.scope.attrs = rt, name, attrs
	c.ctx.task, c.ctx.scope = t, &c.scope
	c.ctx.node.Store(n)
	return &c.ctx
}

// supervisor returns the context's node. A task's own context gets its
// node (a child of the task's spawn node) on first use, so a task that
// never spawns and never calls Child costs no node.
func (c *Context) supervisor() *supervise.Node {
	if n := c.node.Load(); n != nil {
		return n
	}
	c.node.CompareAndSwap(nil, c.task.node.Child())
	return c.node.Load()
}

var _ simrt.Context = (*Context)(nil)

// From returns the production context behind ctx. It panics if ctx does not
// come from this package's runtime.
func From(ctx simrt.Context) *Context {
	c, ok := ctx.(*Context)
	if !ok {
		panic("realtime.From: context does not belong to the realtime runtime")
	}
	return c
}

func (c *Context) taskLabel() *metrics.TaskLabel {
	s := c.scope
	if l := s.label.Load(); l != nil {
		return l
	}
	l := c.scope.rt.taskMetric.Label(s.name, "Task")
	s.label.Store(l)
	return l
}

// Logger returns the runtime's logger (Config.Logger) through a
// telemetry/logging handler: every record carries the name of this
// context's task (attribute task) and the runtime's time. System code that
// must not import realtime builds the same logger with logging.NewHandler.
func (c *Context) Logger() *slog.Logger {
	return slog.New(logging.NewHandler(c.scope.rt.log.Handler(), c))
}

// Child implements simrt.Supervisor.Child.
func (c *Context) Child(label string) simrt.Context {
	c.scope.rt.check()
	return newContext(c.scope.rt, c.task, metrics.ChildLabel(c.scope.name, label), c.scope.attrs, c.supervisor().Child())
}

// WithAttribute implements simrt.Supervisor.WithAttribute.
func (c *Context) WithAttribute(key, value string) simrt.Context {
	c.scope.rt.check()
	return newContext(c.scope.rt, c.task, c.scope.name, metrics.WithAttr(c.scope.attrs, key, value), c.supervisor())
}

// Name implements simrt.Supervisor.Name.
func (c *Context) Name() simrt.Name {
	return simrt.Name{Label: c.scope.name, Attributes: append([]simrt.Attribute(nil), c.scope.attrs...)}
}

// SpawnTask implements rtapi.Plumbing.SpawnTask; use simrt.Spawn. The task
// runs on a new goroutine. Once shutdown has begun, the handle is closed at
// once.
func (c *Context) SpawnTask(t rtapi.Task) rtapi.Aborter {
	return c.scope.rt.spawn(c, t)
}

// Stop implements simrt.Spawner.Stop.
func (c *Context) Stop(value int, timeout time.Duration) error {
	c.scope.rt.check()
	drained := c.scope.rt.shutdown.Stop(value)
	if timeout <= 0 {
		drained.Wait(c)
		return nil
	}
	if simrt.Select(c, drained.OnFire(nil), simrt.After(c, timeout, nil)) == 1 {
		return simrt.ErrTimeout
	}
	return nil
}

// Stopped implements simrt.Spawner.Stopped. The signal is released when
// the task owning this context ends, if not before.
func (c *Context) Stopped() *simrt.StopSignal {
	c.scope.rt.check()
	return (*simrt.StopSignal)(c.scope.rt.shutdown.Stopped(&c.task.ct))
}

// Now implements simrt.Clock.Now: the wall clock.
func (c *Context) Now() time.Time { return time.Now() }

// Sleep implements simrt.Clock.Sleep on the wall clock.
func (c *Context) Sleep(d time.Duration) {
	if d <= 0 {
		c.CurrentTask()
		return
	}
	c.SleepUntil(time.Now().Add(d))
}

// SleepUntil implements simrt.Clock.SleepUntil on the wall clock.
func (c *Context) SleepUntil(at time.Time) {
	t := c.CurrentTask()
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

// CurrentTask implements rtapi.Plumbing: the task that owns this context.
// It panics if that task has ended (the context escaped its task).
func (c *Context) CurrentTask() *core.Task {
	c.scope.rt.check()
	if c.task.hasEnded() {
		panic(fmt.Sprintf("realtime: blocking call through the context of task %q, which has ended; "+
			"a task must block only through the Context it was given", c.task.name()))
	}
	if !c.task.marked() {
		c.task.markGoroutine() // blocking through its own context: this is its goroutine
	}
	return &c.task.ct
}

// AfterFunc implements rtapi.Plumbing with a wall-clock timer; f runs on its
// own goroutine.
func (c *Context) AfterFunc(d time.Duration, f func()) rtapi.Timer {
	c.scope.rt.check()
	return time.AfterFunc(d, f)
}

// Read implements io.Reader (and simrt.Randomness) with crypto/rand; it
// never fails.
func (c *Context) Read(p []byte) (int, error) { return crand.Read(p) }

// Rand implements simrt.Randomness: a generator over crypto/rand, safe for
// concurrent use. All contexts of a runtime share it.
func (c *Context) Rand() *rand.Rand { return c.scope.rt.rand }

// Strategy implements simrt.Strategizer: work runs on the runtime's bounded
// worker pool (Config.Parallelism workers in all) with the calling
// goroutine taking part, so a strategy never waits for a free worker and a
// nested strategy with no free worker runs inline. A panic in the work is
// re-raised, with its original value, from ForEach. It panics if
// parallelism < 1.
func (c *Context) Strategy(parallelism int) simrt.Strategy {
	c.scope.rt.check()
	if parallelism < 1 {
		panic("realtime.Context.Strategy: parallelism must be at least 1")
	}
	return &strategy{p: parallelism, pool: c.scope.rt.pool}
}

func (c *Context) register(name string) string {
	c.scope.rt.check()
	return metrics.JoinName(c.scope.name, name)
}

// Counter implements simrt.Metrics.Counter.
func (c *Context) Counter(name, help string) prometheus.Counter {
	return c.scope.rt.registry.Counter(c.register(name), help, c.scope.attrs)
}

// CounterVec implements simrt.Metrics.CounterVec.
func (c *Context) CounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return c.scope.rt.registry.CounterVec(c.register(name), help, c.scope.attrs, labels...)
}

// Gauge implements simrt.Metrics.Gauge.
func (c *Context) Gauge(name, help string) prometheus.Gauge {
	return c.scope.rt.registry.Gauge(c.register(name), help, c.scope.attrs)
}

// GaugeVec implements simrt.Metrics.GaugeVec.
func (c *Context) GaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return c.scope.rt.registry.GaugeVec(c.register(name), help, c.scope.attrs, labels...)
}

// Histogram implements simrt.Metrics.Histogram.
func (c *Context) Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return c.scope.rt.registry.Histogram(c.register(name), help, buckets, c.scope.attrs)
}

// HistogramVec implements simrt.Metrics.HistogramVec.
func (c *Context) HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return c.scope.rt.registry.HistogramVec(c.register(name), help, buckets, c.scope.attrs, labels...)
}

// Encode implements simrt.Metrics.Encode: the runtime's own metrics, as in
// the simulator. Process and Go runtime metrics are only served by the
// metrics endpoint.
func (c *Context) Encode() string {
	c.scope.rt.check()
	return c.scope.rt.registry.Encode()
}

var _ rtapi.Plumbing = (*Context)(nil)
