package shell

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/metrics"
)

// Backend is what a runtime supplies to the shell. Every *Context it is
// handed is the first field of one of its own contexts, made by the
// runtime itself or by its Derive.
type Backend interface {
	// Derive returns a new context of the runtime that acts as parent
	// does (its host, its task, its node process: whatever the runtime
	// keeps per context), initialised with s and n (see Context.Init).
	Derive(parent *Context, s *Scope, n *supervise.Node) simrt.Context
	// TaskNode returns the spawn node of the task c belongs to, for a
	// context made without a node (see Context.Init).
	TaskNode(c *Context) *supervise.Node
	// Spawn implements rtapi.Plumbing.SpawnTask for c.
	Spawn(c *Context, t rtapi.Task) rtapi.Aborter
	// CurrentTask implements rtapi.Plumbing.CurrentTask for c.
	CurrentTask(c *Context) *core.Task
	// Holder returns the task that holds a stop signal taken through c
	// (nil for none: the signal is then held until released).
	Holder(c *Context) *core.Task
	// AfterFunc implements rtapi.Plumbing.AfterFunc for c.
	AfterFunc(c *Context, d time.Duration, f func()) rtapi.Timer
	// Now implements simrt.Clock.Now for c.
	Now(c *Context) time.Time
	// Sleep implements simrt.Clock.Sleep for c.
	Sleep(c *Context, d time.Duration)
	// SleepUntil implements simrt.Clock.SleepUntil for c.
	SleepUntil(c *Context, t time.Time)
	// Read implements simrt.Randomness's io.Reader.
	Read(p []byte) (int, error)
	// Rand implements simrt.Randomness.Rand.
	Rand() *rand.Rand
	// Strategy returns the runtime's strategy for parallelism >= 1.
	Strategy(parallelism int) simrt.Strategy
	// Storage returns the storage stack c opens blobs on (see
	// StorageStack).
	Storage(c *Context) simrt.Storage
}

// Context is the shell of a runtime's simrt.Context: everything but what
// its Backend decides. A runtime embeds it as the first field of its own
// context type, which adds the rest of simrt.Context (Bind, Dial, Resolve,
// AssertProperty, BuggifySite) and its own methods.
type Context struct {
	scope *Scope
	node  atomic.Pointer[supervise.Node] // nil in a task's own context until first needed
}

// Init sets up a new context c in scope s on supervision node n. A task's
// own context may have no node (n nil): it gets one below the task's spawn
// node (Backend.TaskNode) when it first spawns or makes a Child, so that a
// task that does neither costs no node.
//
// Init, ScopeOf and NodeOf are functions, not methods, so that a runtime
// context embedding Context does not offer them to its users.
func Init(c *Context, s *Scope, n *supervise.Node) {
	c.scope = s
	if n != nil {
		c.node.Store(n)
	}
}

// ScopeOf returns the scope of c.
func ScopeOf(c *Context) *Scope { return c.scope }

// NodeOf returns the supervision node of c, making it on first use (see
// Init).
func NodeOf(c *Context) *supervise.Node {
	if n := c.node.Load(); n != nil {
		return n
	}
	c.node.CompareAndSwap(nil, c.scope.rt.backend.TaskNode(c).Child())
	return c.node.Load()
}

// Child implements simrt.Supervisor.Child.
func (c *Context) Child(label string) simrt.Context {
	rt := c.scope.rt
	rt.Check()
	s := rt.NewScope(supervise.ChildName(c.scope.name, label), c.scope.attrs)
	return rt.backend.Derive(c, s, NodeOf(c).Child())
}

// WithAttribute implements simrt.Supervisor.WithAttribute.
func (c *Context) WithAttribute(key, value string) simrt.Context {
	rt := c.scope.rt
	rt.Check()
	s := rt.NewScope(c.scope.name, supervise.WithAttr(c.scope.attrs, key, value))
	return rt.backend.Derive(c, s, NodeOf(c))
}

// Name implements simrt.Supervisor.Name.
func (c *Context) Name() simrt.Name {
	var attrs []simrt.Attribute
	if len(c.scope.attrs) > 0 {
		attrs = make([]simrt.Attribute, len(c.scope.attrs))
		for i, a := range c.scope.attrs {
			attrs[i] = simrt.Attribute(a)
		}
	}
	return simrt.Name{Label: c.scope.name, Attributes: attrs}
}

// SpawnTask implements rtapi.Plumbing.SpawnTask; use simrt.Spawn.
func (c *Context) SpawnTask(t rtapi.Task) rtapi.Aborter { return c.scope.rt.backend.Spawn(c, t) }

// CurrentTask implements rtapi.Plumbing.CurrentTask.
func (c *Context) CurrentTask() *core.Task { return c.scope.rt.backend.CurrentTask(c) }

// AfterFunc implements rtapi.Plumbing.AfterFunc.
func (c *Context) AfterFunc(d time.Duration, f func()) rtapi.Timer {
	return c.scope.rt.backend.AfterFunc(c, d, f)
}

// Stop implements simrt.Spawner.Stop.
func (c *Context) Stop(value int, timeout time.Duration) error {
	rt := c.scope.rt
	rt.Check()
	if rt.rec != nil {
		var b [4]byte
		b[0], b[1], b[2], b[3] = byte(value>>24), byte(value>>16), byte(value>>8), byte(value)
		rt.rec.Event(audit.Stop, b[:])
	}
	drained := rt.Shutdown.Stop(value)
	if rt.OnStop != nil {
		rt.OnStop(value, timeout)
	}
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
// the task that took it ends, if not before.
func (c *Context) Stopped() *simrt.StopSignal {
	rt := c.scope.rt
	rt.Check()
	rt.event(audit.Stopped)
	return (*simrt.StopSignal)(rt.Shutdown.Stopped(rt.backend.Holder(c)))
}

// Now implements simrt.Clock.Now.
func (c *Context) Now() time.Time { return c.scope.rt.backend.Now(c) }

// Sleep implements simrt.Clock.Sleep.
func (c *Context) Sleep(d time.Duration) { c.scope.rt.backend.Sleep(c, d) }

// SleepUntil implements simrt.Clock.SleepUntil.
func (c *Context) SleepUntil(t time.Time) { c.scope.rt.backend.SleepUntil(c, t) }

// Read implements io.Reader (and simrt.Randomness) over the runtime's
// source; it never fails.
func (c *Context) Read(p []byte) (int, error) { return c.scope.rt.backend.Read(p) }

// Rand implements simrt.Randomness: a generator over the runtime's source,
// shared by all its contexts.
func (c *Context) Rand() *rand.Rand { return c.scope.rt.backend.Rand() }

// Strategy implements simrt.Strategizer. It panics if parallelism < 1.
func (c *Context) Strategy(parallelism int) simrt.Strategy {
	rt := c.scope.rt
	rt.Check()
	if parallelism < 1 {
		panic(rt.name + ".Context.Strategy: parallelism must be at least 1")
	}
	return rt.backend.Strategy(parallelism)
}

// register returns the full name of metric name registered from c, after
// recording the registration.
func (c *Context) register(name, help string) string {
	rt := c.scope.rt
	rt.Check()
	if rt.rec != nil {
		fields := [][]byte{[]byte(name), []byte(help)}
		for _, a := range c.scope.attrs {
			fields = append(fields, []byte(a.Key), []byte(a.Value))
		}
		rt.rec.Event(audit.Register, fields...)
	}
	return metrics.JoinName(c.scope.name, name)
}

// Counter implements simrt.Metrics.Counter.
func (c *Context) Counter(name, help string) prometheus.Counter {
	return c.scope.rt.Registry.Counter(c.register(name, help), help, c.scope.attrs)
}

// CounterVec implements simrt.Metrics.CounterVec.
func (c *Context) CounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return c.scope.rt.Registry.CounterVec(c.register(name, help), help, c.scope.attrs, labels...)
}

// Gauge implements simrt.Metrics.Gauge.
func (c *Context) Gauge(name, help string) prometheus.Gauge {
	return c.scope.rt.Registry.Gauge(c.register(name, help), help, c.scope.attrs)
}

// GaugeVec implements simrt.Metrics.GaugeVec.
func (c *Context) GaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return c.scope.rt.Registry.GaugeVec(c.register(name, help), help, c.scope.attrs, labels...)
}

// Histogram implements simrt.Metrics.Histogram.
func (c *Context) Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return c.scope.rt.Registry.Histogram(c.register(name, help), help, buckets, c.scope.attrs)
}

// HistogramVec implements simrt.Metrics.HistogramVec.
func (c *Context) HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return c.scope.rt.Registry.HistogramVec(c.register(name, help), help, buckets, c.scope.attrs, labels...)
}

// Encode implements simrt.Metrics.Encode: the runtime's own metrics.
func (c *Context) Encode() string {
	rt := c.scope.rt
	rt.Check()
	rt.event(audit.Encode)
	return rt.Registry.Encode()
}

// Open implements simrt.Storage.Open on the context's storage stack.
func (c *Context) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	rt := c.scope.rt
	rt.Check()
	return rt.backend.Storage(c).Open(partition, name)
}

// OpenVersioned implements simrt.Storage.OpenVersioned on the context's
// storage stack.
func (c *Context) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	rt := c.scope.rt
	rt.Check()
	return rt.backend.Storage(c).OpenVersioned(partition, name, versions)
}

// Remove implements simrt.Storage.Remove on the context's storage stack.
func (c *Context) Remove(partition string, name []byte) error {
	rt := c.scope.rt
	rt.Check()
	return rt.backend.Storage(c).Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition on the
// context's storage stack.
func (c *Context) RemovePartition(partition string) error {
	rt := c.scope.rt
	rt.Check()
	return rt.backend.Storage(c).RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan on the context's storage stack.
func (c *Context) Scan(partition string) ([][]byte, error) {
	rt := c.scope.rt
	rt.Check()
	return rt.backend.Storage(c).Scan(partition)
}

// Outer returns the runtime context *T whose first field is c. Every
// *Context a Backend is handed is one (see Backend); a runtime asserts at
// compile time that its Context embeds the shell at offset 0.
func Outer[T any](c *Context) *T { return (*T)(unsafe.Pointer(c)) }

// From returns ctx as the runtime context *T of the runtime named name. It
// panics if ctx belongs to another runtime.
func From[T any](ctx simrt.Context, name string) *T {
	c, ok := any(ctx).(*T)
	if !ok {
		panic(name + ".From: context does not belong to the " + name + " runtime")
	}
	return c
}
