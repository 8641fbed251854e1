package deterministic

import (
	"math"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/internal/core"
)

// schedState is the executor's scheduling-point state.
type schedState struct {
	// yieldAt is the threshold under which a KindYield or KindSpawn
	// decision yields: YieldProbability scaled to 2^64. Zero: scheduling
	// points are off and draw nothing.
	yieldAt uint64
	// always: YieldProbability is 1, every point yields.
	always bool
	biased bool
	pct    *pct
	// front holds tasks to resume before the executor goes on with its
	// ready list: a spawned task that runs before its creator, a PCT
	// task that takes over.
	front []*task
	// cut sends the front list to the next iteration at the next return
	// to the executor (PCT: a task would take over twice in one
	// iteration; see pct).
	cut bool
}

// initSchedule sets up scheduling points from the config.
func (rt *runtime) initSchedule() {
	p := rt.cfg.Scheduling.YieldProbability
	switch {
	case p >= 1:
		rt.sched.always = true
		rt.sched.yieldAt = math.MaxUint64
	case p > 0:
		rt.sched.yieldAt = uint64(p * (1 << 64))
	}
	rt.sched.biased = rt.cfg.Scheduling.BiasedSelect
	if rt.cfg.Scheduling.Scheduler == PCT {
		rt.sched.yieldAt, rt.sched.always = 0, false
		rt.sched.pct = newPCT(rt.stream, rt.cfg.Scheduling.PCTDepth, rt.cfg.Scheduling.PCTSteps)
	}
}

// yields makes a decision of kind k with the yield probability.
func (rt *runtime) yields(k decision.Kind) bool {
	v := rt.stream.next(k)
	return rt.sched.always || v < rt.sched.yieldAt
}

// pointTask returns the running task if a scheduling point may switch it
// out: not between tasks, not while the run closes, not while the task
// unwinds (a deferred Unlock must not yield).
func (rt *runtime) pointTask() *task {
	t := rt.current
	if t == nil || rt.closing || t.ct.Interrupted() {
		return nil
	}
	return t
}

// Point implements core.Scheduler: the running task may yield here.
func (rt *runtime) Point() {
	if rt.sched.yieldAt == 0 && rt.sched.pct == nil {
		return
	}
	t := rt.pointTask()
	if t == nil {
		return
	}
	if rt.sched.pct != nil {
		rt.pctPoint(t)
		return
	}
	if rt.yields(decision.KindYield) {
		t.Yield()
	}
}

// Choose implements core.Scheduler: a Select's choice among n cases.
func (rt *runtime) Choose(n int) int {
	if rt.sched.biased || rt.closing {
		return 0
	}
	return int(rt.stream.bounded(decision.KindSelect, uint64(n)))
}

// spawned is the scheduling point of a spawn: child, just admitted (the
// last task of the ready list), may run before its creator continues.
func (rt *runtime) spawned(child *task) {
	if rt.sched.yieldAt == 0 && rt.sched.pct == nil {
		return
	}
	parent := rt.pointTask()
	if parent == nil {
		return
	}
	if rt.sched.pct != nil {
		if child.prio <= parent.prio {
			rt.pctPoint(parent)
			return
		}
	} else if !rt.yields(decision.KindSpawn) {
		return
	}
	rt.ready = rt.ready[:len(rt.ready)-1] // child stays queued, in front
	rt.sched.front = append(rt.sched.front, child)
	parent.Yield()
}

// yieldFront switches t out to the front list, behind what is there: it
// resumes before the executor goes on with its ready list.
func (t *task) yieldFront() {
	t.ct.BeforePark()
	if !t.queued {
		t.queued = true
		t.rt.sched.front = append(t.rt.sched.front, t)
	}
	t.yield(false)
	t.ct.AfterPark()
}

// runFront resumes the front tasks; it reports whether the run must stop.
// It stops early, leaving the rest in the front list, when the iteration
// must end (cut).
func (rt *runtime) runFront() bool {
	for len(rt.sched.front) > 0 && !rt.sched.cut {
		t := rt.sched.front[0]
		copy(rt.sched.front, rt.sched.front[1:])
		rt.sched.front[len(rt.sched.front)-1] = nil
		rt.sched.front = rt.sched.front[:len(rt.sched.front)-1]
		if t.finished || rt.nodes.paused > 0 && rt.hold(t) {
			continue
		}
		t.queued = false
		rt.resume(t)
		if rt.stop {
			return true
		}
	}
	return false
}

// deferFront sends the front list to the next iteration (cut).
func (rt *runtime) deferFront() {
	rt.sched.cut = false
	for _, t := range rt.sched.front {
		if !t.finished {
			rt.ready = append(rt.ready, t)
		}
	}
	clear(rt.sched.front)
	rt.sched.front = rt.sched.front[:0]
}

var _ core.Scheduler = (*runtime)(nil)

// Point implements core.Scheduler for the task's core (see runtime.Point):
// the running task, which need not be t, may yield.
func (t *task) Point() { t.rt.Point() }

// Choose implements core.Scheduler (see runtime.Choose).
func (t *task) Choose(n int) int { return t.rt.Choose(n) }

var _ core.Scheduler = (*task)(nil)
