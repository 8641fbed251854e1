package deterministic

import (
	"slices"

	"github.com/simrt/simrt/deterministic/decision"
)

// pct is the state of the PCT scheduler (Burckhardt, Kothari, Musuvathi
// and Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees
// of Finding Bugs", ASPLOS 2010). Every task gets a random initial
// priority above depth-1; the executor runs ready tasks in priority order,
// and a task that reaches a scheduling point gives way to a ready task of
// higher priority. At each of depth-1 change points, scheduling-point
// numbers drawn uniformly from [1, k], the running task's priority drops
// to depth-1, then depth-2, ..., below every initial priority.
//
// The simulator's executor runs in iterations (simulated time advances
// between them), so the highest-priority rule holds at scheduling points,
// spawns and the start of each iteration; a task woken while another runs
// waits for the next of these.
//
// A task takes over at most once per iteration. When the ready task of
// highest priority already took over in this iteration, the running task
// and the front list wait for the next iteration instead (cut), where that
// task, first by priority, runs before them; the iteration's other tasks
// still run in it. So every iteration ends, simulated time advances, and
// the tasks that take part still run in PCT's order. Without the bound, two
// tasks handing a value to each other over an unbuffered channel took
// turns through the front list forever at one simulated instant (issue 26).
type pct struct {
	s       *stream
	depth   uint64
	changes []uint64 // sorted change points
	next    int      // the first change point not yet reached
	step    uint64   // scheduling points so far
	low     uint64   // the priority the next change point gives
	took    []*task  // the tasks that took over in this iteration
}

// newIteration starts an executor iteration: every task may take over
// once more.
func (p *pct) newIteration() {
	clear(p.took)
	p.took = p.took[:0]
}

// newPCT draws the change points of a run.
func newPCT(s *stream, depth, steps int) *pct {
	p := &pct{s: s, depth: uint64(depth), low: uint64(depth) - 1}
	for range depth - 1 {
		p.changes = append(p.changes, 1+s.bounded(decision.KindPriority, uint64(steps)))
	}
	slices.Sort(p.changes)
	return p
}

// admit gives a new task its random initial priority. Priorities are
// distinct with overwhelming probability; ties go to the older task.
func (p *pct) admit(t *task) {
	t.prio = p.depth + p.s.next(decision.KindPriority)>>2
}

// sortReady orders an iteration's ready list by priority, highest first.
func sortReady(q []*task) {
	slices.SortFunc(q, func(a, b *task) int {
		switch {
		case a.prio > b.prio:
			return -1
		case a.prio < b.prio:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
}

// pctPoint is a scheduling point of t under PCT.
func (rt *runtime) pctPoint(t *task) {
	p := rt.sched.pct
	p.step++
	lowered := false
	for p.next < len(p.changes) && p.changes[p.next] == p.step {
		p.next++
		lowered = true
	}
	if lowered {
		t.prio = p.low
		if p.low > 1 {
			p.low--
		}
	}
	best := -1
	for i, r := range rt.ready {
		if r.prio > t.prio && (best < 0 || r.prio > rt.ready[best].prio) {
			best = i
		}
	}
	if best >= 0 {
		h := rt.ready[best]
		if slices.Contains(p.took, h) {
			// h took over once in this iteration already: t waits for
			// the next iteration, where h runs first.
			rt.sched.cut = true
			t.yieldFront()
			return
		}
		rt.ready = slices.Delete(rt.ready, best, best+1)
		p.took = append(p.took, h)
		rt.sched.front = append(rt.sched.front, h)
		t.yieldFront()
		return
	}
	if lowered {
		t.Yield() // the rest of this iteration outranks t now
	}
}
