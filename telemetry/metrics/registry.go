// Package metrics is the metric registry both runtimes share: Prometheus
// collectors from client_golang, named after the registering context,
// labelled with its attributes, deduplicated, and encoded as sorted,
// deterministic OpenMetrics text.
//
// A context named "api" with attribute region=us that registers the counter
// "requests" gets the series api_requests_total{region="us"}. Registering
// the same name, attributes and type again returns the collector already
// registered.
package metrics

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Prefix is the reserved name prefix of runtime metrics. No context label
// may start with it.
const Prefix = "runtime"

// Attr is one constant label.
type Attr struct{ Key, Value string }

// Registry holds every metric of one runtime. It is safe for concurrent use.
//
// The collectors a runtime registers for itself (through Registerer, and
// the task metrics) are held back and registered with client_golang only
// when the registry is first read (Encode, Gatherer) or a metric is
// registered by name: client_golang's Register starts a goroutine per call
// to describe the collector, which a simulation that never reads its
// metrics should not pay four times per seed.
type Registry struct {
	mu      sync.Mutex
	reg     *prometheus.Registry // nil until first needed (see flushLocked)
	entries map[string]entry
	help    map[string]string // family name -> help
	// pending holds the collectors registered through Registerer but not
	// yet with reg, in registration order (see flushLocked).
	pending []prometheus.Collector
	eager   bool // Gatherer has been called: register at once
}

type entry struct {
	kind string
	c    prometheus.Collector
}

// New returns an empty registry.
// The client_golang registry and the maps are made when first needed (see
// flushLocked), so a registry that is never read costs one allocation.
func New() *Registry { return &Registry{} }

// Registerer returns a client_golang registerer, for layers that register
// their own collectors (the runtime's storage and network metrics).
// Collectors registered there appear in Encode.
//
// Registration is deferred (see Registry): the collector is registered with
// client_golang when the registry is first read, or at once if a collector
// of the same Go type is already waiting, so that a second registration of
// the same collector gets client_golang's AlreadyRegisteredError (metered
// layers share their collector through it). A deferred collector that
// conflicts with another one is reported when the registry is read: Encode
// panics, and the Gatherer returns the error.
func (r *Registry) Registerer() prometheus.Registerer { return (*deferred)(r) }

// deferred is the Registerer of a Registry: see Registerer.
type deferred Registry

// Register implements prometheus.Registerer.
func (d *deferred) Register(c prometheus.Collector) error {
	r := (*Registry)(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eager {
		return r.reg.Register(c)
	}
	t := reflect.TypeOf(c)
	for _, p := range r.pending {
		if reflect.TypeOf(p) == t { // it may be a duplicate: let client_golang decide
			if err := r.flushLocked(); err != nil {
				return err
			}
			return r.reg.Register(c)
		}
	}
	r.pending = append(r.pending, c)
	return nil
}

// MustRegister implements prometheus.Registerer: it panics on the first
// collector that Register refuses.
func (d *deferred) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := d.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister implements prometheus.Registerer.
func (d *deferred) Unregister(c prometheus.Collector) bool {
	r := (*Registry)(d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.flushLocked(); err != nil {
		panic("metrics: register: " + err.Error())
	}
	return r.reg.Unregister(c)
}

// flushLocked registers the pending collectors with client_golang. r.mu
// must be held. It stops at the first one refused, which it drops.
func (r *Registry) flushLocked() error {
	if r.reg == nil {
		r.reg = prometheus.NewRegistry()
		r.entries = make(map[string]entry)
		r.help = make(map[string]string)
	}
	for len(r.pending) > 0 {
		c := r.pending[0]
		r.pending[0] = nil
		r.pending = r.pending[1:]
		if err := r.reg.Register(c); err != nil {
			return err
		}
	}
	r.pending = nil
	return nil
}

// flush registers the pending collectors; it panics if one is refused.
func (r *Registry) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.flushLocked(); err != nil {
		panic("metrics: register: " + err.Error())
	}
}

// JoinName returns the metric name for name registered from a context
// labelled label ("" at the root).
func JoinName(label, name string) string {
	if label == "" {
		return name
	}
	return label + "_" + name
}

func key(name string, attrs []Attr) string {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range attrs {
		b.WriteByte(0)
		b.WriteString(a.Key)
		b.WriteByte(0)
		b.WriteString(a.Value)
	}
	return b.String()
}

func constLabels(attrs []Attr) prometheus.Labels {
	if len(attrs) == 0 {
		return nil
	}
	l := make(prometheus.Labels, len(attrs))
	for _, a := range attrs {
		l[a.Key] = a.Value
	}
	return l
}

// get returns the collector registered under (name, attrs), creating it with
// mk when absent. It panics when the name was registered with another type
// or another help text, or when name is not a valid metric name.
func (r *Registry) get(kind, name, help string, attrs []Attr, mk func(prometheus.Labels) prometheus.Collector) prometheus.Collector {
	ValidateMetricName(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.flushLocked(); err != nil {
		panic("metrics: register: " + err.Error())
	}
	k := key(name, attrs)
	if e, ok := r.entries[k]; ok {
		if e.kind != kind {
			panic(fmt.Sprintf("duplicate metric `%s` with attributes %v registered with different type", name, attrs))
		}
		return e.c
	}
	if h, ok := r.help[name]; ok && h != help {
		panic(fmt.Sprintf("metric family `%s` registered with inconsistent help text", name))
	}
	c := mk(constLabels(attrs))
	if err := r.reg.Register(c); err != nil {
		panic(fmt.Sprintf("metric family `%s` registered with inconsistent metric type: %v", name, err))
	}
	r.entries[k] = entry{kind: kind, c: c}
	r.help[name] = help
	return c
}

// Counter registers (or finds) a counter. Its samples are named name_total.
func (r *Registry) Counter(name, help string, attrs []Attr) prometheus.Counter {
	return r.get("counter", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name + "_total", Help: help, ConstLabels: l})
	}).(prometheus.Counter)
}

// CounterVec registers (or finds) a counter family. It panics, naming the
// label, if a label name is invalid (see ValidateLabelNames).
func (r *Registry) CounterVec(name, help string, attrs []Attr, labels ...string) *prometheus.CounterVec {
	ValidateLabelNames(name, labels)
	return r.get("countervec", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name + "_total", Help: help, ConstLabels: l}, labels)
	}).(*prometheus.CounterVec)
}

// Gauge registers (or finds) a gauge.
func (r *Registry) Gauge(name, help string, attrs []Attr) prometheus.Gauge {
	return r.get("gauge", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: l})
	}).(prometheus.Gauge)
}

// GaugeVec registers (or finds) a gauge family; its label names are
// checked as CounterVec's.
func (r *Registry) GaugeVec(name, help string, attrs []Attr, labels ...string) *prometheus.GaugeVec {
	ValidateLabelNames(name, labels)
	return r.get("gaugevec", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: l}, labels)
	}).(*prometheus.GaugeVec)
}

// Histogram registers (or finds) a histogram.
func (r *Registry) Histogram(name, help string, buckets []float64, attrs []Attr) prometheus.Histogram {
	return r.get("histogram", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets, ConstLabels: l})
	}).(prometheus.Histogram)
}

// HistogramVec registers (or finds) a histogram family; its label names
// are checked as CounterVec's.
func (r *Registry) HistogramVec(name, help string, buckets []float64, attrs []Attr, labels ...string) *prometheus.HistogramVec {
	ValidateLabelNames(name, labels)
	return r.get("histogramvec", name, help, attrs, func(l prometheus.Labels) prometheus.Collector {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets, ConstLabels: l}, labels)
	}).(*prometheus.HistogramVec)
}

// Encode returns every metric in the OpenMetrics text format: families
// sorted by name, series sorted by labels, ending in "# EOF\n".
func (r *Registry) Encode() string {
	r.flush()
	mfs, err := r.reg.Gather()
	if err != nil {
		panic("metrics: gather: " + err.Error())
	}
	// Gather returns the families sorted by name, and each family's series
	// sorted by their labels.
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeOpenMetrics))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			panic("metrics: encode: " + err.Error())
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		_ = c.Close()
	}
	return buf.String()
}
