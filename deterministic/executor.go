package deterministic

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/metrics"
)

// runtime is one simulation: the executor, its clock, RNG, auditor and
// every piece of simulator state. Nothing here is shared between runtimes,
// so simulations can run in parallel on different goroutines.
type runtime struct {
	cfg     Config
	now     int64 // simulated nanoseconds since the Unix epoch
	end     int64 // deadline, when hasEnd
	hasEnd  bool
	stream  *stream    // every decision of the run (stream.go)
	rng     *rand.Rand // fault and delay draws of the storage and network models
	user    *rand.Rand // audited draws for tasks
	auditor *Auditor
	dns     map[string][]netip.Addr

	ready  []*task
	spare  []*task
	idle   []*coroutine // finished tasks' coroutines, for reuse
	pooled *pooled      // what this run borrowed from Config.Hooks.Coroutines (task.go)
	timers timers
	// firing is set while fireTimers runs a timer, firingAt its instant
	// (see instant); deadlineWakes holds the instant at which an
	// interrupt first woke each task it names (see wakeState).
	firing        bool
	firingAt      int64
	deadlineWakes map[*task]int64
	current       *task
	after         func(task string, now time.Time) // Config.Hooks.AfterResume
	root          *task
	nextID        uint64
	live          struct{ head, tail *task }
	stop          bool // the root finished or a task panic must stop the run
	closing       bool
	props         *properties // made at the first property or Buggify call

	sh         shell.Runtime // the tree, shutdown, metrics, failure and end of the run (context.go)
	iterations prometheus.Counter

	sched   schedState // scheduling points, Select choices, PCT (schedule.go)
	spin    spinGuard  // the livelock guard (livelock.go)
	storage storageState
	network networkState
	nodes   nodesState // node.go

	// progress counts resumes; the watchdog reads it from its own
	// goroutine. Outside pacing waits the executor is never idle for long,
	// so a counter that stops moving means a resume that does not return.
	progress     atomic.Uint64
	externalWait atomic.Bool
	watchdog     watchdogState   // the run's state as the watchdog sees it (watchdog.go)
	labels       context.Context // profiler labels of this runtime's task coroutines
	labelID      string          // their value: the owner's address

	warmed uintptr // where warm's loads go, so that they are not dropped

	plain plainState // plain Go's semaphores, notify lists and timers (plain_*.go)

	// still counts the iterations since the clock last moved, under
	// Config.AdvanceWhenBlocked (see advance).
	still int

	// id tells the primitives this run's tasks use from another run's (see
	// core.Lock); the first task to start makes it.
	id core.RuntimeID
}

// descIterations describes runtime_iterations_total, shared by every
// runtime (see metrics.NewCounter).
var descIterations = prometheus.NewDesc("runtime_iterations_total", "Total number of iterations.", nil, nil)

func newRuntime(cfg Config, cp *Checkpoint) *runtime {
	rt := &runtime{cfg: cfg, after: cfg.Hooks.AfterResume}
	if cp != nil {
		rt.now, rt.stream, rt.auditor, rt.dns = cp.now, cp.stream, cp.auditor.snapshot(), cp.dns
	} else {
		rt.now = cfg.StartTime.UnixNano()
		src := cfg.Source
		if src == nil {
			var seed [32]byte
			binary.LittleEndian.PutUint64(seed[:], cfg.Seed)
			src = rand.NewChaCha8(seed)
		}
		rt.stream = newStream(src, cfg.Replay, cfg.Hooks.Record)
		rt.auditor = NewAuditor()
		if cfg.Hooks.EventLog != 0 {
			rt.auditor.log = &EventLog{Limit: cfg.Hooks.EventLog}
		}
		rt.dns = make(map[string][]netip.Addr)
		if end := addTime(rt.now, cfg.Timeout); cfg.Timeout > 0 && end < never {
			rt.end, rt.hasEnd = end, true // a deadline past the end of time never comes
		}
	}
	if cp != nil {
		rt.end, rt.hasEnd = cp.end, cp.hasEnd
	}
	rt.auditor.where = rt.where
	rt.sh.Init("deterministic", rt, rt.auditor, abortSpawned)
	rt.borrow(cfg.Hooks.Coroutines)
	rt.initLabels()
	rt.rng = rand.New(&source{s: rt.stream, k: decision.KindFault})
	rt.initSchedule()
	rt.spin.init(cfg.LivelockSteps)
	rt.user = rand.New(auditedSource{rt})
	rt.iterations = metrics.NewCounter(descIterations)
	rt.sh.Registry.Registerer().MustRegister(rt.iterations)
	return rt
}

// where tells the event log the simulated time and the running task.
func (rt *runtime) where() (int64, string) {
	name := "<runtime>"
	if rt.current != nil {
		name = rt.current.name
	}
	return rt.now, name
}

func (rt *runtime) check() { rt.sh.Check() }

func (rt *runtime) currentTask() *task {
	rt.check()
	if rt.current == nil {
		if entry := core.ForeignGoroutine(loopEntry); entry != "" {
			panic(core.ForeignMessage("a blocking call was made outside a task", entry))
		}
		panic("deterministic: blocking call made outside a task of this runtime")
	}
	return rt.current
}

// admit gives t its id and coroutine and queues it; ids increase, so the
// live list stays sorted by id.
func (rt *runtime) admit(t *task) {
	t.rt = rt
	t.id = rt.nextID
	rt.nextID++
	t.start()
	if rt.live.tail == nil {
		rt.live.head = t
	} else {
		rt.live.tail.nextLive = t
		t.prevLive = rt.live.tail
	}
	rt.live.tail = t
	t.queued = true
	rt.ready = append(rt.ready, t)
	if rt.sched.pct != nil {
		rt.sched.pct.admit(t)
	}
}

func (rt *runtime) unlinkLive(t *task) {
	if t.prevLive != nil {
		t.prevLive.nextLive = t.nextLive
	} else {
		rt.live.head = t.nextLive
	}
	if t.nextLive != nil {
		t.nextLive.prevLive = t.prevLive
	} else {
		rt.live.tail = t.prevLive
	}
	t.prevLive, t.nextLive = nil, nil
}

// spawn implements rtapi.Plumbing.SpawnTask for ctx.
func (rt *runtime) spawn(ctx *Context, body rtapi.Task) rtapi.Aborter {
	rt.check()
	if rt.closing {
		body.Done(simrt.ErrClosed)
		return rtapi.NoAbort{}
	}
	s := shell.ScopeOf(&ctx.shellContext)
	label := s.TaskLabel()
	label.Spawned.Add(1)
	// One allocation for the task, its spawn node and its context, so that
	// what a resume touches sits together in memory (see task). The context
	// shares ctx's scope and gets its own node when it first needs one.
	tc := &taskWithContext{}
	t, child, node := &tc.task, &tc.task.own, &tc.node
	*t = task{name: s.Name(), label: label, body: body}
	if !shell.NodeOf(&ctx.shellContext).SpawnAt(node) {
		body.Done(simrt.ErrClosed)
		return rtapi.NoAbort{}
	}
	label.Running.Add(1)
	child.rt, child.task, child.host, child.proc = rt, t, ctx.host, ctx.proc
	shell.Init(&child.shellContext, s, nil)
	t.node = node
	t.proc = ctx.proc
	t.ctx = child
	rt.admit(t)
	rt.auditor.spawn(t.id, t.name)
	rt.spawned(t)
	return (*taskRef)(node)
}

// resume runs t until it parks or ends.
func (rt *runtime) resume(t *task) {
	rt.auditor.processTask(t.id, t.name)
	t.label.Polls.Add(1)
	rt.current = t
	rt.progress.Add(1)
	finished, _ := t.next()
	rt.leaveIfAbandoned()
	rt.current = nil
	if rt.after != nil {
		rt.after(t.name, time.Unix(0, rt.now).UTC())
	}
	if finished {
		rt.finish(t)
	} else if rt.spin.steps++; rt.spin.steps >= rt.spin.mark {
		rt.spinning(t)
	}
}

// finish does the bookkeeping of a task that ended.
func (rt *runtime) finish(t *task) {
	t.finished = true
	rt.spin.progressed()
	t.release()
	rt.unlinkLive(t)
	if !t.ct.IsAborted() {
		t.label.Running.Add(-1)
	}
	t.ct.RunExitHooks()
	// Abort what the task spawned before its handle learns the outcome, so
	// that an awaiter finds the subtree already aborted.
	if t.node != nil {
		t.node.Finish()
	}
	if t.outcome == core.OutcomePanicked && rt.cfg.Hooks.OnTaskPanic != nil && !rt.closing {
		rt.cfg.Hooks.OnTaskPanic(t.name, t.panic.Value, t.panic.Stack)
	}
	err, failed := rt.sh.Result(shell.End{Task: t.name, Outcome: t.outcome, Panic: t.panic,
		Root: t.root, Catch: rt.cfg.CatchPanics, Closing: rt.closing})
	if failed {
		rt.stop = true
	}
	if t.body != nil {
		t.body.Done(err)
	}
	if t.root {
		rt.stop = true
	}
	t.fn, t.body, t.ctx = nil, nil, nil
}

// taskWithContext is a spawned task (which holds its own context)
// allocated together with its spawn node. It is 384 bytes, a size class
// whose objects are 64-byte aligned, so the task's first field starts a
// cache line.
type taskWithContext struct {
	task task
	node supervise.Node
}

// abortSpawned is the supervision tree's abortTask: the tree hands back
// only spawn nodes, and every spawn node is the node of a taskWithContext.
func abortSpawned(n *supervise.Node) { taskOf(n).Abort() }

// taskOf returns the task of spawn node n.
func taskOf(n *supervise.Node) *task {
	return &supervise.Owner[taskWithContext](n, unsafe.Offsetof(taskWithContext{}.node)).task
}

// loop is the executor: the reference's loop, iteration by iteration.
func (rt *runtime) loop() {
	for {
		rt.checkDeadline()
		queue := rt.ready
		rt.ready = rt.spare[:0]
		if rt.sched.pct != nil {
			rt.sched.pct.newIteration()
		}
		if len(queue) > 1 {
			if rt.sched.pct != nil {
				sortReady(queue)
			} else {
				rt.shuffle(queue)
			}
		}
		for i, t := range queue {
			if t.finished || rt.nodes.paused > 0 && rt.hold(t) {
				continue
			}
			if i+warmAhead < len(queue) {
				rt.warm(queue[i+warmAhead])
			}
			t.queued = false
			rt.resume(t)
			if rt.stop {
				rt.spare = queue[:0]
				return
			}
			if len(rt.sched.front) > 0 {
				if rt.runFront() {
					rt.spare = queue[:0]
					return
				}
				if rt.sched.cut {
					rt.deferFront()
				}
			}
		}
		clear(queue)
		rt.spare = queue[:0]
		before := rt.now
		rt.advance()
		rt.wakeUntilProgress()
		if rt.now != before {
			rt.spin.progressed()
		}
		rt.iterations.Inc()
	}
}

// warmAhead is how far down the ready list warm looks.
const warmAhead = 1

// warm loads the first words the executor will read when it resumes t: the
// task's hot fields and its coroutine's resume closure (a func value points
// at its closure object, whose first word is the code pointer). With
// thousands of tasks resumed in shuffled order, both are cache misses; taken
// while the task before t runs, they overlap with that resume's own misses
// instead of adding to the next one (30% less per resume at 10,000 tasks).
func (rt *runtime) warm(t *task) {
	w := uintptr(t.id)
	if c := *(**uintptr)(unsafe.Pointer(&t.next)); c != nil {
		w += *c
	}
	rt.warmed += w
}

// shuffle is Fisher–Yates over the runtime's generator, written out so the
// order is the same on every platform and Go version.
func (rt *runtime) shuffle(q []*task) {
	for i := len(q) - 1; i > 0; i-- {
		j := rt.stream.bounded(decision.KindSchedule, uint64(i+1))
		q[i], q[j] = q[j], q[i]
	}
}

func (rt *runtime) checkDeadline() {
	if rt.hasEnd && rt.now >= rt.end {
		panic(rt.verdict(ErrRunTimeout))
	}
}

// advance moves the clock one cycle (and, in pacing mode, sleeps one real
// cycle so that external processes make progress).
func (rt *runtime) advance() {
	if rt.cfg.External {
		time.Sleep(rt.cfg.Cycle) // external pacing: the real wait is the point
	}
	if rt.cfg.AdvanceWhenBlocked {
		rt.still++
		if rt.still < rt.cfg.SpinIterations {
			return // tasks are still ready: no time passes (see wakeUntilProgress)
		}
		// Tasks have kept one another ready for SpinIterations iterations:
		// give them one Cycle, but never jump past the next timer, so a
		// sleep still ends exactly when it is due.
		rt.still = 0
		at := addTime(rt.now, rt.cfg.Cycle)
		if next, ok := rt.timers.peek(); ok && next > rt.now && next < at {
			at = next
		}
		rt.now = at
		return
	}
	rt.now = addTime(rt.now, rt.cfg.Cycle)
}

// wakeUntilProgress fires due timers, jumping over idle time, until a task
// is ready. With nothing ready and no timer left, the run has stalled.
func (rt *runtime) wakeUntilProgress() {
	for {
		if !rt.cfg.External && len(rt.ready) == 0 {
			if at, ok := rt.timers.peek(); ok && at > rt.now {
				rt.now = at
				rt.still = 0
			}
		}
		rt.checkDeadline()
		rt.fireTimers()
		if rt.cfg.External || len(rt.ready) > 0 {
			return
		}
		if rt.timers.len() == 0 {
			panic(rt.verdict(ErrStalled))
		}
	}
}

func (rt *runtime) fireTimers() {
	rt.firing = true
	for {
		at, ok := rt.timers.peek()
		if !ok || at > rt.now {
			rt.firing = false
			return
		}
		rt.firingAt = at
		tm := rt.timers.pop()
		f := tm.f
		tm.f = nil // a handle kept after the timer is gone keeps no closure alive
		if tm.cancelled {
			rt.timers.recycle(tm)
			continue
		}
		tm.cancelled = true // fired: a later stop reports false
		if tm.task != nil {
			tm.task.ct.Unpark()
			rt.timers.recycle(tm)
		} else {
			f()
		}
	}
}

// afterFunc schedules f (or wakes tk) after d of simulated time. A timer
// due at the end of simulated time (never) is recorded but not scheduled:
// it never fires, and it gives the clock no point to jump to.
func (rt *runtime) afterFunc(d time.Duration, tk *task, f func()) *timer {
	at := addTime(rt.now, max(d, 0))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(at))
	rt.auditor.Event(audit.Timer, b[:])
	if at == never {
		return &timer{at: at, task: tk, f: f}
	}
	return rt.timers.add(at, tk, f)
}

// sleepUntil parks the current task until the simulated time at; at ==
// never parks it until it is aborted.
func (rt *runtime) sleepUntil(at int64) {
	t := rt.currentTask()
	if rt.now >= at {
		return
	}
	rt.afterFunc(time.Duration(at-rt.now), t, nil)
	t.wakeAt = at
	for rt.now < at {
		t.ct.ParkOn((*sleepWait)(t))
	}
}

// auditedSource is the generator tasks draw from: every draw is an event.
type auditedSource struct{ rt *runtime }

var fieldNextU64 = []byte("next_u64")

func (s auditedSource) Uint64() uint64 {
	s.rt.check()
	s.rt.auditor.Event(audit.Rand, fieldNextU64)
	return s.rt.stream.next(decision.KindRand)
}
