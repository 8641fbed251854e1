package realtime

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/metrics"
)

// runtime is one production runtime: the supervision tree, the task
// goroutines, the shutdown machinery and the resources the contexts share.
// Nothing here is global, so several runtimes may run in one process.
type runtime struct {
	cfg        Config
	log        *slog.Logger
	tree       *supervise.Tree
	shutdown   rtapi.Shutdown[simrt.Signal, *simrt.Signal]
	registry   *metrics.Registry
	taskMetric *metrics.Tasks
	rootLabel  *metrics.TaskLabel // the root task's series
	rand       *rand.Rand
	pool       *pool
	network    *metered.Network
	storage    simrt.Storage
	disk       simrt.Storage // the directory under storage (storage.go)
	metrics    *metricsServer

	// Admission. live counts task goroutines, and spawns in flight: a
	// spawn counts itself, then checks closing, then links its task into
	// the tree. The shutdown sets closing, aborts the tree (after which
	// the tree refuses every spawn) and then waits for live to reach zero,
	// so it waits for every task the tree took, and a spawn that sees
	// closing set, or is refused, uncounts itself.
	closing  atomic.Bool
	live     atomic.Int64
	liveZero chan struct{} // a token when live reaches zero while closing
	io       closers       // every open I/O resource, closed at shutdown
	netUsed  atomic.Bool   // a listener or connection has been opened: mark tasks as they start
	marked   markedTasks   // the marked tasks, by goroutine label set (interrupt.go)
	blobs    closers       // every open blob, closed once every task has ended

	root    *task
	failure atomic.Pointer[failure]
	done    atomic.Bool
}

// failure is the first uncaught panic, re-raised from Start.
type failure struct {
	task  string
	value any
	stack []byte
}

func newRuntime(cfg Config) *runtime {
	rt := &runtime{
		cfg:      cfg,
		log:      cfg.Logger,
		tree:     supervise.New(abortSpawned),
		registry: metrics.New(),
		rand:     rand.New(cryptoSource{}),
		pool:     newPool(cfg.Parallelism),
		liveZero: make(chan struct{}, 1),
	}
	rt.taskMetric = metrics.NewTasks(rt.registry)
	return rt
}

func (rt *runtime) check() {
	if rt.done.Load() {
		panic("realtime: context used after its runtime finished (a Context must not escape Start)")
	}
}

// spawn implements rtapi.Plumbing.SpawnTask for ctx.
func (rt *runtime) spawn(ctx *Context, work rtapi.Task) rtapi.Aborter {
	rt.check()
	label := ctx.taskLabel()
	label.Spawned.Add(1)
	label.Running.Add(1)
	t := &task{work: work} // its series is label, through its scope
	t.ct.SetBackend(t)
	t.ctx.task, t.ctx.scope = t, ctx.scope // the same runtime, name and attributes
	rt.live.Add(1)
	if rt.closing.Load() || !ctx.supervisor().SpawnAt(&t.node) {
		rt.leave()
		t.endAndRelease()
		work.Done(simrt.ErrClosed)
		return rtapi.NoAbort{}
	}
	t.start(ctx.task)
	return &t.node
}

// run is the body of a task's goroutine. The frames between it and the
// task's function are kept few and small: a goroutine starts with a small
// stack, and what the runtime takes of it brings the task's first stack
// growth (a copy of the whole stack) closer.
func (t *task) run() {
	out, p := core.OutcomeNone, (*core.Panic)(nil) // OutcomeNone after runtime.Goexit
	defer func() {
		defer t.ctx.scope.rt.leave()
		t.ctx.scope.rt.finish(t, out, p)
	}()
	if t.ctx.scope.rt.netUsed.Load() {
		t.markGoroutine()
	}
	out, p = t.ct.Call(t.body)
}

// body is what core.Task.Call runs: the task's first poll.
func (t *task) body() {
	t.label().Polls.Add(1)
	t.work.Run(&t.ctx)
}

// leave uncounts a task goroutine, or a refused spawn, from live.
func (rt *runtime) leave() {
	if rt.live.Add(-1) == 0 && rt.closing.Load() {
		select {
		case rt.liveZero <- struct{}{}:
		default: // a token is already there
		}
	}
}

// finish does the bookkeeping of a task that ended, on its goroutine.
func (rt *runtime) finish(t *task, out core.Outcome, p *core.Panic) {
	t.endAndRelease()
	rt.marked.remove(t)
	t.ct.RunExitHooks()
	if x := t.io.Load(); x != nil {
		x.closers.forget()
	}
	var err error
	switch out {
	case core.OutcomeOK:
	case core.OutcomeAborted, core.OutcomeNone:
		err = simrt.ErrClosed
	case core.OutcomePanicked:
		err = rt.panicked(t, p)
	}
	// Abort everything the task spawned before reporting its outcome, so
	// that when Await returns the task's subtree is already aborted (its
	// running gauges released), as in the simulator.
	t.node.Finish()
	if t.work != nil {
		t.work.Done(err)
	}
}

// panicked logs a task's panic and decides what its handle reports: a
// *simrt.PanicError when panics are caught, otherwise ErrClosed, after
// recording the failure and aborting the root so that Start re-raises it.
func (rt *runtime) panicked(t *task, p *core.Panic) error {
	rt.log.Error("task panicked", "task", t.name(), "panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
	switch {
	case rt.closing.Load():
		return simrt.ErrClosed
	case t.isRoot() || !rt.cfg.CatchPanics:
		rt.fail(t, p)
		return simrt.ErrClosed
	default:
		return &simrt.PanicError{Value: p.Value, Stack: p.Stack}
	}
}

// fail records the first uncaught panic and stops the root.
func (rt *runtime) fail(t *task, p *core.Panic) {
	if !rt.failure.CompareAndSwap(nil, &failure{task: t.name(), value: p.Value, stack: p.Stack}) {
		return
	}
	if r := rt.root; r != t && r.ct.Abort() {
		r.closers().interruptAll()
	}
}

// close is the shutdown that loses nothing: admission closes, the whole
// tree is aborted, every open I/O resource is closed so that no task stays
// blocked in the kernel, and close returns once every task goroutine has
// ended.
func (rt *runtime) close() {
	rt.closing.Store(true)
	rt.tree.Root().Abort()
	if rt.root.ct.Abort() {
		rt.root.closers().interruptAll()
	}
	rt.io.interruptAll() // unblock every task in the kernel...
	rt.awaitTasks()      // ...wait until every task goroutine has ended...
	rt.io.closeAll()     // ...then close, with nobody inside
	rt.root.closers().closeAll()
	rt.blobs.closeAll()
	rt.closeStorage()
	if rt.metrics != nil {
		rt.metrics.close()
	}
	rt.rootLabel.Running.Add(-1)
	rt.done.Store(true)
}

// awaitTasks returns once live is zero; closing must be set.
func (rt *runtime) awaitTasks() {
	for rt.live.Load() != 0 {
		<-rt.liveZero // a token may be stale: check again
	}
}

// cryptoSource is a rand.Source over crypto/rand.
type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
