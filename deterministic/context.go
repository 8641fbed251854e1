package deterministic

import (
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/metrics"
)

// Context is the simulator's simrt.Context. The root function receives one;
// spawned tasks receive it as a simrt.Context, and From recovers it. Besides
// the simrt capabilities it offers what only a simulation has: the Auditor,
// DNS registration, storage fault configuration and network controls.
//
// A Context may be used by any task of its runtime, but never after Start
// has returned (that panics) and never from another goroutine.
type Context struct {
	rt    *runtime
	name  string
	attrs []metrics.Attr
	node  *supervise.Node
	host  netip.Addr         // the simulated host this context acts as, if set
	label *metrics.TaskLabel // task metrics of tasks spawned here, once resolved
	proc  *incarnation       // the node process the context acts for, if any (node.go)
}

var _ simrt.Context = (*Context)(nil)

// From returns the simulator context behind ctx. It panics if ctx does not
// come from this package's runtime.
func From(ctx simrt.Context) *Context {
	c, ok := ctx.(*Context)
	if !ok {
		panic("deterministic.From: context does not belong to the deterministic runtime")
	}
	return c
}

// Seed returns the seed the simulation was configured with (0 when a
// Config.Source replaced the seeded generator).
func (c *Context) Seed() uint64 { return c.rt.cfg.Seed }

// Auditor returns the runtime's auditor.
func (c *Context) Auditor() *Auditor {
	c.rt.check()
	return c.rt.auditor
}

// Child implements simrt.Supervisor.Child.
func (c *Context) Child(label string) simrt.Context {
	c.rt.check()
	d := *c // every field carries over, but the name, the node and the task label
	d.name, d.node, d.label = metrics.ChildLabel(c.name, label), c.node.Child(), nil
	return &d
}

// WithAttribute implements simrt.Supervisor.WithAttribute.
func (c *Context) WithAttribute(key, value string) simrt.Context {
	c.rt.check()
	d := *c
	d.attrs = metrics.WithAttr(c.attrs, key, value)
	return &d
}

// Name implements simrt.Supervisor.Name.
func (c *Context) Name() simrt.Name {
	return simrt.Name{Label: c.name, Attributes: append([]simrt.Attribute(nil), c.attrs...)}
}

// SpawnTask implements rtapi.Plumbing.SpawnTask; use simrt.Spawn.
func (c *Context) SpawnTask(t rtapi.Task) rtapi.Aborter {
	return c.rt.spawn(c, t)
}

// Stop implements simrt.Spawner.Stop.
func (c *Context) Stop(value int, timeout time.Duration) error {
	c.rt.check()
	var b [4]byte
	b[0], b[1], b[2], b[3] = byte(value>>24), byte(value>>16), byte(value>>8), byte(value)
	c.rt.auditor.Event("stop", b[:])
	drained := c.rt.shutdown.Stop(value)
	if timeout <= 0 {
		drained.Wait(c)
		return nil
	}
	if simrt.Select(c, drained.OnFire(nil), simrt.After(c, timeout, nil)) == 1 {
		return simrt.ErrTimeout
	}
	return nil
}

// Stopped implements simrt.Spawner.Stopped.
func (c *Context) Stopped() *simrt.StopSignal {
	c.rt.check()
	c.rt.auditor.Event("stopped")
	var t *core.Task
	if c.rt.current != nil {
		t = &c.rt.current.ct
	}
	return (*simrt.StopSignal)(c.rt.shutdown.Stopped(t))
}

// Now implements simrt.Clock.Now: the simulated time, on a node's clock
// for a node's context.
func (c *Context) Now() time.Time {
	c.rt.check()
	if c.proc != nil {
		return c.proc.now()
	}
	return time.Unix(0, c.rt.now).UTC()
}

// Sleep implements simrt.Clock.Sleep in simulated time. A sleep that would
// end at or past the end of simulated time (2262, math.MaxInt64 ns after the
// Unix epoch) never ends: the task stays parked until it is aborted.
func (c *Context) Sleep(d time.Duration) {
	c.rt.check()
	if c.proc != nil {
		d = c.proc.global(d) // a node's duration, in global time
	}
	c.rt.sleepUntil(addTime(c.rt.now, max(d, 0)))
}

// SleepUntil implements simrt.Clock.SleepUntil in simulated time. A time
// before now returns at once; a time at or past the end of simulated time
// (see Sleep) never comes.
func (c *Context) SleepUntil(t time.Time) {
	c.rt.check()
	if c.proc != nil {
		c.rt.sleepUntil(c.proc.untilGlobal(t))
		return
	}
	c.rt.sleepUntil(simNanos(t))
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

// CurrentTask implements rtapi.Plumbing.
func (c *Context) CurrentTask() *core.Task { return &c.rt.currentTask().ct }

// AfterFunc implements rtapi.Plumbing: f runs in the executor, between
// tasks, once d of simulated time has passed.
func (c *Context) AfterFunc(d time.Duration, f func()) rtapi.Timer {
	c.rt.check()
	if c.proc != nil {
		return c.proc.afterFunc(d, f)
	}
	return c.rt.afterFunc(d, nil, f)
}

var fieldFillBytes = []byte("fill_bytes")

// Read implements io.Reader (and simrt.Randomness) with seeded bytes; it
// never fails.
func (c *Context) Read(p []byte) (int, error) {
	c.rt.check()
	c.rt.auditor.Event("rand", fieldFillBytes)
	c.rt.stream.read(KindRand, p)
	return len(p), nil
}

// Rand implements simrt.Randomness: a generator whose every draw is
// audited. All contexts of a runtime share it.
func (c *Context) Rand() *rand.Rand {
	c.rt.check()
	return c.rt.user
}

// Strategy implements simrt.Strategizer: work runs inline, in order, on the
// calling task, whatever parallelism it plans for.
func (c *Context) Strategy(parallelism int) simrt.Strategy {
	c.rt.check()
	if parallelism < 1 {
		panic("deterministic.Context.Strategy: parallelism must be at least 1")
	}
	return simrt.Inline{P: parallelism}
}

func (c *Context) register(name, help string) string {
	c.rt.check()
	full := metrics.JoinName(c.name, name)
	fields := [][]byte{[]byte(name), []byte(help)}
	for _, a := range c.attrs {
		fields = append(fields, []byte(a.Key), []byte(a.Value))
	}
	c.rt.auditor.Event("register", fields...)
	return full
}

// Counter implements simrt.Metrics.Counter.
func (c *Context) Counter(name, help string) prometheus.Counter {
	return c.rt.registry.Counter(c.register(name, help), help, c.attrs)
}

// CounterVec implements simrt.Metrics.CounterVec.
func (c *Context) CounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return c.rt.registry.CounterVec(c.register(name, help), help, c.attrs, labels...)
}

// Gauge implements simrt.Metrics.Gauge.
func (c *Context) Gauge(name, help string) prometheus.Gauge {
	return c.rt.registry.Gauge(c.register(name, help), help, c.attrs)
}

// GaugeVec implements simrt.Metrics.GaugeVec.
func (c *Context) GaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return c.rt.registry.GaugeVec(c.register(name, help), help, c.attrs, labels...)
}

// Histogram implements simrt.Metrics.Histogram.
func (c *Context) Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return c.rt.registry.Histogram(c.register(name, help), help, buckets, c.attrs)
}

// HistogramVec implements simrt.Metrics.HistogramVec.
func (c *Context) HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return c.rt.registry.HistogramVec(c.register(name, help), help, buckets, c.attrs, labels...)
}

// Encode implements simrt.Metrics.Encode.
func (c *Context) Encode() string {
	c.rt.check()
	c.rt.auditor.Event("encode")
	return c.rt.registry.Encode()
}
