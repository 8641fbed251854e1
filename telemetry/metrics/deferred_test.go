package metrics

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// describeCounter is a collector that counts the calls of its Describe.
type describeCounter struct {
	desc  *prometheus.Desc
	calls int
}

func (d *describeCounter) Describe(ch chan<- *prometheus.Desc) { d.calls++; ch <- d.desc }
func (d *describeCounter) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(d.desc, prometheus.GaugeValue, 7)
}

// TestRegistererDefersUntilRead pins the per-run saving: a collector
// registered through Registerer is not described (client_golang's Register
// describes it on a goroutine of its own) until the registry is read.
func TestRegistererDefersUntilRead(t *testing.T) {
	r := New()
	c := &describeCounter{desc: prometheus.NewDesc("runtime_deferred_test", "help", nil, nil)}
	r.Registerer().MustRegister(c)
	NewTasks(r)
	if c.calls != 0 {
		t.Fatalf("Describe called %d times before the registry was read, want 0", c.calls)
	}
	if out := r.Encode(); !strings.Contains(out, "runtime_deferred_test 7") {
		t.Fatalf("deferred collector missing from Encode:\n%s", out)
	}
	if c.calls == 0 {
		t.Fatal("Encode did not register the deferred collector")
	}
}

// TestRegistererDuplicateIsAlreadyRegistered: the metered layers share a
// collector through client_golang's AlreadyRegisteredError, which a
// deferred registration must still return.
func TestRegistererDuplicateIsAlreadyRegistered(t *testing.T) {
	r := New()
	a := &describeCounter{desc: prometheus.NewDesc("runtime_dup_test", "help", nil, nil)}
	b := &describeCounter{desc: prometheus.NewDesc("runtime_dup_test", "help", nil, nil)}
	if err := r.Registerer().Register(a); err != nil {
		t.Fatal(err)
	}
	err := r.Registerer().Register(b)
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) || are.ExistingCollector != a {
		t.Fatalf("second registration: %v, want AlreadyRegisteredError with the first collector", err)
	}
}

// TestRegistererConflictReportedOnRead: two deferred collectors that
// conflict (one family, two types) are refused when the registry is read.
func TestRegistererConflictReportedOnRead(t *testing.T) {
	r := New()
	r.Registerer().MustRegister(&describeCounter{desc: prometheus.NewDesc("runtime_conflict_test", "help", nil, nil)})
	r.Registerer().MustRegister(NewCounter(prometheus.NewDesc("runtime_conflict_test", "help", nil, nil)))
	mustPanic(t, "metrics: register", func() { r.Encode() })
}

// TestRegisterByNameSeesDeferred: registering a metric by name checks it
// against the deferred collectors too.
func TestRegisterByNameSeesDeferred(t *testing.T) {
	r := New()
	r.Registerer().MustRegister(NewCounter(prometheus.NewDesc("x_total", "help", nil, nil)))
	mustPanic(t, "inconsistent metric type", func() { r.Gauge("x_total", "help", nil) })
}

// TestGathererRegistersAtOnce: once the gatherer is out, collectors are
// registered with client_golang as they come, since it reads that
// registry directly.
func TestGathererRegistersAtOnce(t *testing.T) {
	r := New()
	g := r.Gatherer()
	c := &describeCounter{desc: prometheus.NewDesc("runtime_late_test", "help", nil, nil)}
	r.Registerer().MustRegister(c)
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		found = found || mf.GetName() == "runtime_late_test"
	}
	if !found {
		t.Fatal("collector registered after Gatherer is missing from Gather")
	}
}

// TestNewCounterEncodesAsClientGolang: a shared-descriptor counter encodes
// exactly as client_golang's own counter.
func TestNewCounterEncodesAsClientGolang(t *testing.T) {
	ours, theirs := New(), New()
	a := NewCounter(prometheus.NewDesc("runtime_c_total", "help", nil, nil))
	b := prometheus.NewCounter(prometheus.CounterOpts{Name: "runtime_c_total", Help: "help"})
	ours.Registerer().MustRegister(a)
	theirs.Registerer().MustRegister(b)
	for _, c := range []prometheus.Counter{a, b} {
		c.Inc()
		c.Add(2)
		c.Add(0.5)
	}
	if o, w := ours.Encode(), theirs.Encode(); o != w || !strings.Contains(o, "runtime_c_total 3.5") {
		t.Fatalf("NewCounter encodes\n%s\nclient_golang\n%s", o, w)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Add(-1) did not panic")
		}
	}()
	a.Add(-1)
}
