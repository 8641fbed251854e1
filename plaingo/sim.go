//go:build simrt_plain

package plaingo

import (
	"runtime"
	"simrthook"
	"strconv"
	"unsafe"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// sim is one plain-Go simulation: the hooks installed for its tasks. The
// simulator runs one task at a time, so nothing here needs a lock.
type sim struct {
	root   *deterministic.Context
	labels unsafe.Pointer
	// chans holds the waiters of every native channel a task is parked
	// on, by the channel's pointer; an entry leaves when its last waiter
	// does (free keeps it for reuse).
	chans map[unsafe.Pointer]*chanState
	free  []*chanState
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
	site uintptr // the go statement's pc
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
	var pc [1]uintptr
	runtime.Callers(3, pc[:]) // Callers, Go, simrthook.Go
	s.started++
	s.live++
	g := &goroutine{s: s, f: f, name: "g" + strconv.Itoa(s.started), site: pc[0]}
	s.root.Child(g.name).SpawnTask(g)
	s.task().Point()
}

// Yield implements simrthook.Chans.
func (s *sim) Yield() { s.task().Yield() }

// Block implements simrthook.Chans: the task parks until the run ends.
func (s *sim) Block(what string) {
	t := s.task()
	b := &blocked{what: what, pc: callerPC()}
	for {
		t.ParkOn(b)
	}
}

// blocked is a park that nothing ends.
type blocked struct {
	what string
	pc   uintptr
}

// BlockedOn implements core.Blocker.
func (b *blocked) BlockedOn() string { return b.what + " at " + site(b.pc) + " (forever)" }

// waitGoroutines parks the calling task until every goroutine has ended.
func (s *sim) waitGoroutines() {
	t := s.task()
	s.idle = t
	defer func() { s.idle = nil }()
	for s.live > 0 {
		t.ParkOn(core.WaitText("the test's goroutines to end (plain-Go leak check)"))
	}
}

// callerPC returns the pc of the first caller outside simrthook and this
// package: the rewritten statement.
func callerPC() uintptr {
	var pcs [8]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !internalFrame(f.Function) {
			return f.PC
		}
		if !more {
			return 0
		}
	}
}

func internalFrame(fn string) bool {
	return hasPrefix(fn, "simrthook.") || hasPrefix(fn, "github.com/simrt/simrt/plaingo.")
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// site renders pc as file:line with the file's base name, the same in
// every run.
func site(pc uintptr) string {
	if pc == 0 {
		return "an unknown place"
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	file := f.File
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' {
			file = file[i+1:]
			break
		}
	}
	return file + ":" + strconv.Itoa(f.Line)
}

var _ = simrt.ErrClosed
