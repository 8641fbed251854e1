package deterministic

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
)

// The simulator's own verdicts on a run. Start panics with a *Verdict that
// wraps one of them; match with errors.Is.
var (
	// ErrStalled: no task can make progress and no timer is pending.
	ErrStalled = errors.New("runtime stalled")
	// ErrRunTimeout: the run reached Config.Timeout of simulated time.
	ErrRunTimeout = errors.New("runtime timeout")
	// ErrLivelock: the run resumed Config.LivelockSteps tasks in a row
	// without simulated time advancing or a task ending.
	ErrLivelock = errors.New("runtime livelock")
	// ErrNativeBlock: a task stayed blocked in a native Go call (a channel,
	// sync.Mutex, time.Sleep, real I/O) for Config.Hooks.Watchdog of real
	// time. The run was abandoned (see Runner.Start).
	ErrNativeBlock = errors.New("task blocked in a native Go call")
)

// Verdict is the panic value of a run the simulator stopped itself: it
// stalled (Err is ErrStalled), ran out of time (ErrRunTimeout) or spun
// without progress (ErrLivelock). It lists every task that was alive, what
// each parked one waited on and since when, so that a deadlock can be read
// off the report without a rerun; a livelock verdict first names the tasks
// that kept running. Its Error text starts with "runtime stalled",
// "runtime timeout" or "runtime livelock" and then lists the tasks, one a
// line.
//
// The listing is made from state the executor keeps beside the run (what
// each park recorded, see core.Blocker); it is never audited, so it changes
// no audit state.
type Verdict struct {
	Err   error       // ErrStalled, ErrRunTimeout, ErrLivelock or ErrNativeBlock
	Time  time.Time   // the simulated time of the verdict (for a timeout, the deadline)
	Tasks []TaskState // every live task, in id (spawn) order

	// For ErrLivelock only: Steps resumes ran without simulated time
	// advancing or a task ending (Config.LivelockSteps); Spinning names
	// the tasks resumed most often in the last Window of them, most
	// resumed first, at most five.
	Steps    uint64
	Window   uint64
	Spinning []SpinningTask
	// Stack is, for ErrNativeBlock, the blocked task's stack cut to the
	// user's frames (and the standard library call that blocks), one
	// "function\n\tfile:line" pair per frame; "" otherwise. Tasks then
	// holds only the blocked task, and Time is the simulated time when it
	// was resumed.
	Stack string
	// Stuck is, for ErrNativeBlock, how long the task had been blocked in
	// real time when the watchdog gave up on it.
	Stuck time.Duration
}

// TaskState is one live task when the run stopped.
type TaskState struct {
	ID   uint64
	Name string // the task's context label; "" for the root
	// Node is the simulated host the task's context acts as (WithHost);
	// the zero Addr when it has none.
	Node netip.Addr
	// Ready is true for a task that was woken (or rescheduled) and waits
	// only for its turn, Running for the task that asked (see
	// Context.Tasks); the others are parked.
	Ready, Running bool
	// On is what the parked task waits on ("receive on chan made at
	// node.go:140 (capacity 1)", "sleep until ...", "Await task \"w\"");
	// "" when the primitive it parked on does not say.
	On string
	// Since is the simulated time the task last parked.
	Since time.Time
}

// Error implements error.
func (v *Verdict) Error() string {
	var b strings.Builder
	switch {
	case errors.Is(v.Err, ErrStalled):
		b.WriteString("runtime stalled: no task can make progress and no timer is pending")
	case errors.Is(v.Err, ErrRunTimeout):
		b.WriteString("runtime timeout: the run reached Config.Timeout of simulated time")
	case errors.Is(v.Err, ErrLivelock):
		fmt.Fprintf(&b, "runtime livelock: %d resumes without simulated time advancing or a task ending "+
			"(Config.LivelockSteps)", v.Steps)
	case errors.Is(v.Err, ErrNativeBlock):
		return v.nativeBlock()
	default:
		b.WriteString(v.Err.Error())
	}
	fmt.Fprintf(&b, " (at %s);", v.Time.UTC().Format(time.RFC3339Nano))
	if len(v.Spinning) > 0 {
		fmt.Fprintf(&b, " the tasks resumed most in the last %d resumes:", v.Window)
		for _, s := range v.Spinning {
			b.WriteString("\n  ")
			b.WriteString(s.String())
		}
		b.WriteString("\n")
	} else {
		b.WriteString(" ")
	}
	fmt.Fprintf(&b, "%d live tasks:", len(v.Tasks))
	for _, t := range v.Tasks {
		b.WriteString("\n  ")
		b.WriteString(t.String(v.Time))
	}
	return b.String()
}

// nativeBlock renders an ErrNativeBlock verdict.
func (v *Verdict) nativeBlock() string {
	name := "<unknown>"
	if len(v.Tasks) > 0 {
		name = strconv.Quote(v.Tasks[0].Name)
		if v.Tasks[0].Name == "" {
			name = "<root>"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v: task %s has not parked for %v of real time (resumed at %s); "+
		"it is blocked in a native Go call (channel, sync.Mutex, time.Sleep, real I/O). "+
		"Inside a simulation, block only through simrt primitives (simrt.Chan, simrt.Mutex, ctx.Sleep, ...). "+
		"The run was abandoned: its goroutines leak until the process exits.",
		v.Err, name, v.Stuck.Round(time.Millisecond), v.Time.UTC().Format(time.RFC3339Nano))
	if v.Stack != "" {
		fmt.Fprintf(&b, "\nstack of task %s (its own frames):\n%s", name, strings.TrimRight(v.Stack, "\n"))
	}
	return b.String()
}

// Unwrap returns Err.
func (v *Verdict) Unwrap() error { return v.Err }

// String renders the task on one line, its waiting time counted up to now:
//
//	task "node" on 10.0.0.1 (#3) parked 4ms, since 1970-01-01T00:00:00.001Z: receive on chan made at node.go:140 (capacity 64)
func (t TaskState) String(now time.Time) string {
	name := taskName(t.Name)
	if t.Node.IsValid() {
		name += " on " + t.Node.String()
	}
	switch {
	case t.Running:
		return fmt.Sprintf("task %s (#%d) running", name, t.ID)
	case t.Ready:
		return fmt.Sprintf("task %s (#%d) ready to run", name, t.ID)
	}
	on := t.On
	if on == "" {
		on = "a wait that does not describe itself"
	}
	return fmt.Sprintf("task %s (#%d) parked %v, since %s: %s", name, t.ID, now.Sub(t.Since),
		t.Since.UTC().Format(time.RFC3339Nano), on)
}

// taskName renders a task's name as a report does: quoted, or <root>.
func taskName(name string) string {
	if name == "" {
		return "<root>"
	}
	return strconv.Quote(name)
}

var _ core.TaskDescriber = (*task)(nil)

// DescribeTask implements core.TaskDescriber, naming t as the task list of
// a verdict does: `task "worker" (#3)`, `task <root> (#1)`, with ", which
// has ended" once it has.
func (t *task) DescribeTask() string {
	s := "task " + taskName(t.name) + " (#" + strconv.FormatUint(t.id, 10) + ")"
	if t.finished {
		s += ", which has ended"
	}
	return s
}

// verdict builds the verdict err on the run as it stands: called by the
// executor, between resumes, where it panics.
func (rt *runtime) verdict(err error) *Verdict {
	now := rt.now
	if err == ErrRunTimeout && rt.hasEnd {
		now = min(now, rt.end) // the clock may have jumped past the end: no task saw that time
	}
	return &Verdict{Err: err, Time: time.Unix(0, now).UTC(), Tasks: rt.tasks()}
}

// tasks lists the live tasks in id order.
func (rt *runtime) tasks() []TaskState {
	var out []TaskState
	for t := rt.live.head; t != nil; t = t.nextLive {
		out = append(out, rt.taskState(t))
	}
	return out
}

// taskState describes live task t.
func (rt *runtime) taskState(t *task) TaskState {
	s := TaskState{ID: t.id, Name: t.name, Running: t == rt.current,
		Ready: t != rt.current && (!t.parked || t.queued), Since: time.Unix(0, t.since).UTC()}
	if c, ok := t.ctx.(*Context); ok {
		s.Node = c.host
	}
	if p := t.proc; p != nil && !p.dead && p.n.state == NodePaused && s.Ready {
		s.Ready, s.On = false, "node "+p.n.cfg.Name+" paused" // held by the executor
	}
	if !s.Ready && !s.Running && s.On == "" {
		if b := t.ct.WaitingOn(); b != nil {
			s.On = b.BlockedOn()
		}
	}
	return s
}

// Tasks returns every live task of the run, in id (spawn) order, with what
// each parked one waits on and since when: the listing of a stall verdict,
// on demand, for a check of the test's own (a workload that sees no
// progress, say). The calling task is listed as Running. Nothing is
// audited, so calling it changes no audit state. Render a task with
// TaskState.String(ctx.Now()).
func (c *Context) Tasks() []TaskState {
	c.rt.check()
	return c.rt.tasks()
}

// sleepWait is a task seen as the wait of its own sleep.
type sleepWait task

// BlockedOn implements core.Blocker.
func (t *sleepWait) BlockedOn() string {
	if t.wakeAt >= never {
		return "sleep until the end of simulated time (never)"
	}
	return "sleep until " + time.Unix(0, t.wakeAt).UTC().Format(time.RFC3339Nano)
}

// taskRef is the Aborter of a spawned task: its spawn node, which can also
// name the task (core.TaskNamer), so that a report says which task an
// Await waits for.
type taskRef supervise.Node

var _ core.TaskNamer = (*taskRef)(nil)
var _ rtapi.Aborter = (*taskRef)(nil)

// Abort implements rtapi.Aborter.
func (r *taskRef) Abort() { (*supervise.Node)(r).Abort() }

// TaskName implements core.TaskNamer.
func (r *taskRef) TaskName() string { return taskOf((*supervise.Node)(r)).name }
