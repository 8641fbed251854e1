package nemesis

import (
	"fmt"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// String returns the state's name.
func (s Status) String() string {
	switch s {
	case Up:
		return "up"
	case Paused:
		return "paused"
	case Down:
		return "down"
	case Exited:
		return "exited"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// NodeTasks is one node's tasks, as a LivenessError lists them.
type NodeTasks struct {
	Name   string
	Status Status
	Tasks  []deterministic.TaskState
}

// LivenessError is the failure of the liveness phase: the predicate did
// not hold within Bound of the heal. It lists every node's tasks and what
// each is blocked on.
type LivenessError struct {
	Heal, Bound time.Duration
	// Now is the simulated time at which the phase gave up.
	Now   time.Time
	Nodes []NodeTasks
}

// Error returns "nemesis: no progress after heal ..." and, one per line,
// every node and its tasks.
func (e *LivenessError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nemesis: no progress after heal: the predicate did not hold within %v of the heal at %v", e.Bound, e.Heal)
	for _, n := range e.Nodes {
		fmt.Fprintf(&b, "\nnode %s (%s), %d tasks:", n.Name, n.Status, len(n.Tasks))
		for _, t := range n.Tasks {
			fmt.Fprintf(&b, "\n  %s", t.String(e.Now))
		}
	}
	return b.String()
}

// Liveness is the liveness phase: it parks the calling task until the
// heal, then checks pred every poll interval (a hundredth of bound, at
// least a millisecond) until it holds, and returns nil; if bound passes
// after the heal first, it returns a *LivenessError naming every node's
// tasks and what each is blocked on. Call it from a task of the run (the
// root, usually) after Start.
func (m *Nemesis) Liveness(ctx simrt.Context, bound time.Duration, pred func() bool) error {
	if bound <= 0 {
		return fmt.Errorf("nemesis: liveness bound %v is not positive", bound)
	}
	if pred == nil {
		return fmt.Errorf("nemesis: nil liveness predicate")
	}
	m.WaitHealed(ctx)
	poll := max(bound/100, time.Millisecond)
	deadline := ctx.Now().Add(bound)
	for {
		if pred() {
			return nil
		}
		if !ctx.Now().Before(deadline) {
			break
		}
		ctx.SleepUntil(minTime(ctx.Now().Add(poll), deadline))
	}
	e := &LivenessError{Heal: m.s.Heal, Bound: bound, Now: ctx.Now()}
	for _, n := range m.c.Nodes {
		e.Nodes = append(e.Nodes, NodeTasks{Name: n.Name(), Status: n.Status(), Tasks: n.Tasks()})
	}
	return e
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
