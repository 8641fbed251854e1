package metrics

import (
	"errors"
	"math"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// NewCounter returns a counter that reports under desc, which has no
// variable labels. It behaves as prometheus.NewCounter's, but shares the
// descriptor instead of building one: a runtime makes its counters once per
// run, and building a descriptor (hashing its name and labels, checking
// them) costs more than the rest of an idle counter's life. Share one desc
// between the runtimes of a process, as a package variable.
func NewCounter(desc *prometheus.Desc) prometheus.Counter { return &counter{desc: desc} }

// counter is NewCounter's prometheus.Counter: integral increments in ints,
// the rest in bits (a float64), as client_golang's counter keeps them.
type counter struct {
	desc *prometheus.Desc
	ints atomic.Uint64
	bits atomic.Uint64
}

// Desc implements prometheus.Metric.
func (c *counter) Desc() *prometheus.Desc { return c.desc }

// Write implements prometheus.Metric.
func (c *counter) Write(m *dto.Metric) error {
	cm, err := prometheus.NewConstMetric(c.desc, prometheus.CounterValue, c.value())
	if err != nil {
		return err
	}
	return cm.Write(m)
}

// Describe implements prometheus.Collector.
func (c *counter) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *counter) Collect(ch chan<- prometheus.Metric) { ch <- c }

// Inc implements prometheus.Counter.
func (c *counter) Inc() { c.ints.Add(1) }

// Add implements prometheus.Counter. It panics if v is negative.
func (c *counter) Add(v float64) {
	if v < 0 {
		panic(errors.New("counter cannot decrease in value"))
	}
	if i := uint64(v); float64(i) == v {
		c.ints.Add(i)
		return
	}
	for {
		old := c.bits.Load()
		if c.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

func (c *counter) value() float64 {
	return math.Float64frombits(c.bits.Load()) + float64(c.ints.Load())
}
