package metrics

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// TaskLabel is the set of task metrics for one (name, kind, execution)
// series. Runtimes resolve it once per spawn and then update it with plain
// atomic adds, so the executor's hot path does no map lookups.
type TaskLabel struct {
	Name, Kind, Execution string
	Spawned               atomic.Uint64
	Running               atomic.Int64
	Polls                 atomic.Uint64
}

// Tasks is the collector behind runtime_tasks_spawned_total,
// runtime_tasks_running and runtime_task_polls_total.
type Tasks struct {
	mu     sync.Mutex
	labels map[[3]string]*TaskLabel

	spawned, running, polls *prometheus.Desc
}

// The task metrics' descriptions, immutable and shared by every runtime.
var (
	taskLabels      = []string{"name", "kind", "execution"}
	descTaskSpawned = prometheus.NewDesc("runtime_tasks_spawned_total", "Total number of tasks spawned.", taskLabels, nil)
	descTaskRunning = prometheus.NewDesc("runtime_tasks_running", "Number of tasks currently running.", taskLabels, nil)
	descTaskPolls   = prometheus.NewDesc("runtime_task_polls_total", "Total number of task polls.", taskLabels, nil)
)

// NewTasks registers the task metrics in r and returns the collector.
func NewTasks(r *Registry) *Tasks {
	t := &Tasks{
		labels:  make(map[[3]string]*TaskLabel),
		spawned: descTaskSpawned,
		running: descTaskRunning,
		polls:   descTaskPolls,
	}
	r.Registerer().MustRegister(t) // deferred: see Registry
	return t
}

// Label returns the series for a task of the given context name and kind
// ("Root" or "Task"); execution is always "Shared" in simrt.
func (t *Tasks) Label(name, kind string) *TaskLabel {
	k := [3]string{name, kind, "Shared"}
	t.mu.Lock()
	defer t.mu.Unlock()
	l, ok := t.labels[k]
	if !ok {
		l = &TaskLabel{Name: name, Kind: kind, Execution: "Shared"}
		t.labels[k] = l
	}
	return l
}

// Describe implements prometheus.Collector.
func (t *Tasks) Describe(ch chan<- *prometheus.Desc) {
	ch <- t.spawned
	ch <- t.running
	ch <- t.polls
}

// Collect implements prometheus.Collector, in sorted label order.
func (t *Tasks) Collect(ch chan<- prometheus.Metric) {
	t.mu.Lock()
	ls := make([]*TaskLabel, 0, len(t.labels))
	for _, l := range t.labels {
		ls = append(ls, l)
	}
	t.mu.Unlock()
	slices.SortFunc(ls, func(a, b *TaskLabel) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	for _, l := range ls {
		lv := []string{l.Name, l.Kind, l.Execution}
		ch <- prometheus.MustNewConstMetric(t.spawned, prometheus.CounterValue, float64(l.Spawned.Load()), lv...)
		ch <- prometheus.MustNewConstMetric(t.running, prometheus.GaugeValue, float64(l.Running.Load()), lv...)
		ch <- prometheus.MustNewConstMetric(t.polls, prometheus.CounterValue, float64(l.Polls.Load()), lv...)
	}
}
