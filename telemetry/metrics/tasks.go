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
//
// The series' poll count is Polls plus the counts of the tasks that count
// their own polls in a TaskPolls (see Track); PollCount reads the sum.
type TaskLabel struct {
	Name, Kind, Execution string
	Spawned               atomic.Uint64
	Running               atomic.Int64
	Polls                 atomic.Uint64 // polls counted directly, and those of untracked TaskPolls

	mu   sync.Mutex
	live []*TaskPolls // the tracked TaskPolls, each at its slot
}

// TaskPolls is one task's own poll count, for a task that polls often: a
// counter on a cache line only its task writes, where an add to the
// shared TaskLabel.Polls would move that line between the cores of the
// tasks handing turns to each other. Only the task's goroutine may call
// Inc, Track and Fold; Inc is one plain atomic store, no read-modify-write.
//
// A tracked TaskPolls counts in its series' PollCount at once, and Fold
// moves its count into TaskLabel.Polls, so a scrape sees every poll
// exactly once at any time. The zero value is untracked and counts zero.
// It is 16 bytes, for the records of many tasks.
type TaskPolls struct {
	n    atomic.Uint64 // written by its task only; read by PollCount
	slot int32         // 1 + its index in its series' live list while tracked, else 0; only under the series' mu
}

// Inc counts one poll. Only the owning task may call it.
func (p *TaskPolls) Inc() { p.n.Store(p.n.Load() + 1) }

// Track makes p count in series l until Fold. It panics if p is
// tracked already.
func (p *TaskPolls) Track(l *TaskLabel) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.slot != 0 {
		panic("metrics: TaskPolls tracked twice")
	}
	l.live = append(l.live, p)
	p.slot = int32(len(l.live))
}

// Fold moves p's count into the Polls of l, the series tracking it, and
// stops tracking p, whose count is zero again; it does nothing if p is
// untracked. The task calls it when it ends.
func (p *TaskPolls) Fold(l *TaskLabel) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.slot == 0 {
		return
	}
	l.Polls.Add(p.n.Load())
	p.n.Store(0)
	i, last := p.slot-1, len(l.live)-1
	moved := l.live[last]
	l.live[i], moved.slot = moved, p.slot // another task's slot: read only under mu
	l.live[last] = nil
	l.live = l.live[:last]
	p.slot = 0
}

// PollCount returns the series' poll count: Polls and the counts of the
// tracked TaskPolls, read together, so a count moved by Fold is seen
// once. The count never goes down between two calls.
func (l *TaskLabel) PollCount() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.Polls.Load()
	for _, p := range l.live {
		n += p.n.Load()
	}
	return n
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
		ch <- prometheus.MustNewConstMetric(t.polls, prometheus.CounterValue, float64(l.PollCount()), lv...)
	}
}
