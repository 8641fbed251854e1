//go:build simrt_plain

package plaingo

import (
	"runtime"
	"simrthook"
	"strconv"
	"unsafe"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// sim is one plain-Go simulation: the hooks installed for its tasks. The
// simulator runs one task at a time, so nothing here needs a lock.
type sim struct {
	root   *deterministic.Context
	labels unsafe.Pointer
	// chans holds the waiters of every native channel tasks park on, by
	// the channel's pointer; an idle entry leaves at the next sweep (free
	// keeps it for reuse), so the table keeps at most about twice the
	// channels in use alive.
	chans   map[unsafe.Pointer]*chanState
	free    []*chanState
	sweepAt int // the size of chans at which idle entries are dropped
	// waiters is the free list of plain waiters; selects keeps spare
	// select states.
	waiters []*waiter
	selects []*selectState
	// live counts the goroutines started and not yet ended; idle, when
	// set, is the task to wake when it drops to zero.
	live    int
	started int
	idle    *core.Task
	gs      map[*core.Task]*goroutine
	// sites turns on recording where each task parks, for reports: a
	// stack walk costs more than the rest of a channel operation, so a
	// sweep leaves it off and the replay of one seed turns it on.
	sites bool
}

var _ simrthook.Chans = (*sim)(nil)

// newSim makes the hooks of the simulation whose root context is root.
// Call install from a task of that simulation.
func newSim(root *deterministic.Context) *sim {
	return &sim{root: root, chans: map[unsafe.Pointer]*chanState{}, gs: map[*core.Task]*goroutine{}}
}

// install installs s for the task coroutines of the calling task's
// simulation.
func (s *sim) install() {
	s.labels = simrthook.CurrentLabels()
	s.installStd()
	simrthook.Install(s.labels, s)
}

// uninstall removes s.
func (s *sim) uninstall() {
	simrthook.Uninstall(s.labels)
	s.uninstallStd()
}

// task returns the running task.
func (s *sim) task() *core.Task { return s.root.CurrentTask() }

// goroutine is a task started by a go statement.
type goroutine struct {
	s    *sim
	f    func()
	name string
	site stack // where the go statement is
	task *core.Task
}

var _ rtapi.Task = (*goroutine)(nil)

// Run implements rtapi.Task.
func (g *goroutine) Run(ctx rtapi.Plumbing) {
	g.task = ctx.CurrentTask()
	g.s.gs[g.task] = g
	g.f()
}

// Done implements rtapi.Task.
func (g *goroutine) Done(error) {
	s := g.s
	delete(s.gs, g.task)
	s.live--
	if s.live == 0 && s.idle != nil {
		s.idle.Unpark()
	}
}

// Go implements simrthook.Chans: f runs as a task spawned from the root,
// so that it outlives the task that started it, as a goroutine does, and
// is unwound when the run ends. The go statement is a scheduling point.
func (s *sim) Go(f func()) {
	s.started++
	s.live++
	g := &goroutine{s: s, f: f, name: "g" + strconv.Itoa(s.started)}
	g.site.n = runtime.Callers(2, g.site.pcs[:]) // always: a go statement costs a spawn anyway
	s.root.Child(g.name).SpawnTask(g)
	s.task().Point()
}

// Yield implements simrthook.Chans.
func (s *sim) Yield() { s.task().Yield() }

// Block implements simrthook.Chans: the task parks until the run ends.
func (s *sim) Block(what string) {
	t := s.task()
	b := &blocked{what: what}
	b.at.capture(s, 1)
	for {
		t.ParkOn(b)
	}
}

// blocked is a park that nothing ends.
type blocked struct {
	what string
	at   stack
}

// BlockedOn implements core.Blocker.
func (b *blocked) BlockedOn() string { return b.what + " " + b.at.where() + " (forever)" }

// waitGoroutines parks the calling task until every goroutine has ended.
func (s *sim) waitGoroutines() {
	t := s.task()
	s.idle = t
	defer func() { s.idle = nil }()
	for s.live > 0 {
		t.ParkOn(core.WaitText("the test's goroutines to end (plain-Go leak check)"))
	}
}

// stack is where a task parked or a goroutine started: the return
// addresses of the calls above the hooks, resolved only for a report.
type stack struct {
	pcs [6]uintptr
	n   int
}

// capture records the calls of the running goroutine above skip frames,
// if the simulation records park sites (see sim.sites).
func (st *stack) capture(s *sim, skip int) {
	st.n = 0
	if s.sites {
		st.n = runtime.Callers(skip+1, st.pcs[:])
	}
}

// where is " at file:line", or a hint to replay when no site was recorded.
func (st *stack) where() string {
	if st.n == 0 {
		return "(replay the seed with -simrt.seed for where)"
	}
	return "at " + st.site()
}

// site renders the first frame outside simrthook and this package as
// file:line with the file's base name, the same in every run.
func (st *stack) site() string {
	if st.n == 0 {
		return "(replay the seed for where)"
	}
	frames := runtime.CallersFrames(st.pcs[:st.n])
	for {
		f, more := frames.Next()
		if !internalFrame(f.Function) || !more {
			file := f.File
			for i := len(file) - 1; i >= 0; i-- {
				if file[i] == '/' {
					file = file[i+1:]
					break
				}
			}
			return file + ":" + strconv.Itoa(f.Line)
		}
	}
}

func internalFrame(fn string) bool {
	return hasPrefix(fn, "simrthook.") || hasPrefix(fn, "github.com/simrt/simrt/plaingo.")
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
