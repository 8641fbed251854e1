package deterministic

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// defaultLivelockSteps is the LivelockSteps of a zero Config: far above
// the most resumes any test, example or benchmark of this repository makes
// at one simulated instant with no task ending (about 20,000, an iteration
// of 10,000 tasks; see docs/SCHEDULER.md), and a fraction of a second of
// executor time.
const defaultLivelockSteps = 1_000_000

// livelockWindow is how many resumes before a livelock verdict the guard
// counts by task, to name the tasks that kept running.
const livelockWindow = 10_000

// livelockTop is how many of those tasks a verdict names.
const livelockTop = 5

// livelockDoing is how many different waits a verdict lists per task.
const livelockDoing = 4

// spinGuard is the livelock guard (Config.LivelockSteps): it counts the
// resumes since simulated time last advanced or a task last ended. On the
// hot path it costs one increment and one comparison per resume; it counts
// resumes by task only over the last window before the verdict.
type spinGuard struct {
	steps  uint64 // resumes since the last progress
	mark   uint64 // the step at which resume calls spinning next
	limit  uint64 // Config.LivelockSteps; math.MaxUint64 when off
	window uint64 // resumes counted by task before the verdict
	counts map[*task]*SpinningTask
}

// init arms the guard from the config.
func (g *spinGuard) init(steps int) {
	if steps < 0 {
		g.limit = math.MaxUint64
	} else {
		g.limit = uint64(steps)
	}
	g.window = min(g.limit, livelockWindow)
	g.progressed()
}

// progressed restarts the count: simulated time advanced or a task ended.
func (g *spinGuard) progressed() {
	g.steps = 0
	g.mark = g.limit - g.window + 1 // the window's first resume
	if g.limit == math.MaxUint64 {
		g.mark = g.limit
	}
	g.counts = nil
}

// spinning is called after a resume of t, which did not end it, once the
// count reaches the window before the limit: it counts t, and at the limit
// stops the run with a livelock verdict.
func (rt *runtime) spinning(t *task) {
	g := &rt.spin
	if g.counts == nil {
		g.counts = make(map[*task]*SpinningTask)
	}
	s := g.counts[t]
	if s == nil {
		s = &SpinningTask{ID: t.id, Name: t.name}
		g.counts[t] = s
	}
	s.Resumes++
	if len(s.Doing) < livelockDoing {
		st := rt.taskState(t)
		doing := st.On
		switch {
		case st.Ready:
			doing = "yielded (ready to run again)"
		case doing == "":
			doing = "parked on a wait that does not describe itself"
		}
		if !slices.Contains(s.Doing, doing) {
			s.Doing = append(s.Doing, doing)
		}
	}
	if g.steps < g.limit {
		g.mark = g.steps + 1
		return
	}
	v := rt.verdict(ErrLivelock)
	v.Steps = g.steps
	v.Window = g.window
	for _, s := range g.counts {
		v.Spinning = append(v.Spinning, *s)
	}
	slices.SortFunc(v.Spinning, func(a, b SpinningTask) int {
		if c := cmp.Compare(b.Resumes, a.Resumes); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(v.Spinning) > livelockTop {
		v.Spinning = v.Spinning[:livelockTop]
	}
	panic(v)
}

// SpinningTask is one of the tasks a livelock verdict names: how often it
// was resumed in the verdict's window and what it did each time it gave
// the executor back control.
type SpinningTask struct {
	ID   uint64
	Name string // the task's context label; "" for the root
	// Resumes is how many of the Verdict's Window resumes were of this task.
	Resumes uint64
	// Doing lists the different ways the task's resumes in the window
	// ended, in the order first seen, at most four: what it parked on
	// ("receive on unbuffered chan made at node.go:140"), or "yielded
	// (ready to run again)" for a task that stayed ready (a scheduling
	// point, a take-over).
	Doing []string
}

// String renders the task on one line:
//
//	task "pinger" (#1): resumed 5000 times, ending in: send on unbuffered chan made at ping.go:9; receive on ...
func (s SpinningTask) String() string {
	name := strconv.Quote(s.Name)
	if s.Name == "" {
		name = "<root>"
	}
	return fmt.Sprintf("task %s (#%d): resumed %d times, ending in: %s", name, s.ID, s.Resumes,
		strings.Join(s.Doing, "; "))
}
