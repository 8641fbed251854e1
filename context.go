package simrt

import (
	"io"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt/internal/core"
)

// Context is everything a task may use. System code takes a Context and
// never learns which runtime it runs on. A Context is handed to each task
// when it is spawned; derive more with Child and WithAttribute.
//
// The embedded Caller is the runtime's half, which Spawn and the
// blocking primitives use: pass them the Context (their ctx parameter is a
// Caller, and every Context is one); user code has no reason to call its
// methods.
type Context interface {
	Supervisor
	Spawner
	Clock
	Randomness
	Network
	Storage
	Resolver
	Metrics
	Strategizer
	Caller
	Asserter
}

// Caller is the calling task as Spawn and the blocking primitives (Chan,
// Mutex, Select, Timeout, ...) take it: pass the task's Context, which is
// one. Its methods are the runtime's scheduler interface (spawn a task,
// find the running task, set a timer), implemented by both runtimes; user
// code has no reason to call them.
type Caller interface {
	core.Plumbing
}

// Supervisor names contexts and places them in the supervision tree.
type Supervisor interface {
	// Child returns a context below this one, named after label. The label
	// must match [a-zA-Z][a-zA-Z0-9_]* and the full name may not start with
	// "runtime"; otherwise Child panics with a message naming the label.
	// Tasks spawned from the child are aborted when the task that owns this
	// context ends.
	Child(label string) Context
	// WithAttribute returns a context whose metrics carry the constant label
	// key=value (replacing an earlier value for key). The key follows the
	// label rules of Child and the value must be valid UTF-8 (as Prometheus
	// requires); otherwise WithAttribute panics, naming the key.
	WithAttribute(key, value string) Context
	// Name returns the context's label and attributes (sorted by key).
	Name() Name
}

// Name identifies a context: its label ("" at the root, "a_b" for
// Child("a").Child("b")) and its attributes sorted by key.
type Name struct {
	Label      string
	Attributes []Attribute
}

// Attribute is one constant metric label set with WithAttribute.
type Attribute struct{ Key, Value string }

// Spawner coordinates shutdown. Start tasks with Spawn.
type Spawner interface {
	// Stop signals every StopSignal with value (the first value wins) and
	// waits until every signal taken before the first Stop has been
	// released, or until timeout passes (ErrTimeout). A timeout <= 0 waits
	// without limit. Stop never aborts tasks.
	Stop(value int, timeout time.Duration) error
	// Stopped returns a signal that fires with the first Stop value. Until it
	// is released (Release, or the end of the task that took it), it holds
	// Stop open. Taken after Stop, it has already fired and holds nothing.
	Stopped() *StopSignal
}

// Clock tells and waits for runtime time: simulated in the simulator, the
// wall clock in production.
type Clock interface {
	// Now returns the current runtime time.
	Now() time.Time
	// Sleep parks the calling task for d.
	Sleep(d time.Duration)
	// SleepUntil parks the calling task until t; it returns at once if t
	// has passed.
	SleepUntil(t time.Time)
}

// Randomness gives the runtime's random numbers. In the simulator every
// draw comes from the seeded generator and is audited; in production it is
// crypto/rand. The Context itself is an io.Reader over the same source.
type Randomness interface {
	io.Reader
	// Rand returns a generator over the runtime's source.
	Rand() *rand.Rand
}

// Resolver looks up host names.
type Resolver interface {
	// Resolve returns the addresses of host, or a *ResolveError.
	Resolve(host string) ([]netip.Addr, error)
}

// Metrics registers Prometheus collectors under the context's name. A
// metric registered as "requests" from Child("api") is named
// "api_requests"; the context's attributes become constant labels.
// Registering the same name, labels and type again returns the existing
// collector; a different type or help text, or a full name that is not a
// valid Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*), panics naming
// the metric.
type Metrics interface {
	// Counter registers a counter; its samples are named name_total.
	Counter(name, help string) prometheus.Counter
	// CounterVec registers a counter family with the given variable labels.
	CounterVec(name, help string, labels ...string) *prometheus.CounterVec
	// Gauge registers a gauge.
	Gauge(name, help string) prometheus.Gauge
	// GaugeVec registers a gauge family.
	GaugeVec(name, help string, labels ...string) *prometheus.GaugeVec
	// Histogram registers a histogram with the given bucket upper bounds.
	Histogram(name, help string, buckets []float64) prometheus.Histogram
	// HistogramVec registers a histogram family.
	HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec
	// Encode returns every metric of the runtime in the OpenMetrics text
	// format, sorted, ending in "# EOF\n". Same program, same text.
	Encode() string
}

// Strategizer hands out strategies for data-parallel work.
type Strategizer interface {
	// Strategy returns a strategy that plans for the given parallelism. The
	// simulator runs all work inline on the calling task; production runs it
	// on a bounded worker pool.
	Strategy(parallelism int) Strategy
}

// Strategy runs independent pieces of work, possibly in parallel. See Map,
// Fold and ForEach for the helpers built on it.
type Strategy interface {
	// Parallelism returns the parallelism the strategy plans for.
	Parallelism() int
	// ForEach calls f(i) for every i in [0, n) and returns when all calls
	// have returned. Calls may run concurrently; f must not block on runtime
	// primitives.
	ForEach(n int, f func(i int))
}
