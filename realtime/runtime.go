package realtime

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/telemetry/metrics"
)

// runtime is one production runtime: the supervision tree, the task
// goroutines, the shutdown machinery and the resources the contexts share.
// Nothing here is global, so several runtimes may run in one process.
type runtime struct {
	cfg        Config
	log        *slog.Logger
	tree       *supervise.Tree
	shutdown   simrt.Shutdown
	registry   *metrics.Registry
	taskMetric *metrics.Tasks
	rand       *rand.Rand
	pool       *pool
	network    simrt.Network
	storage    simrt.Storage
	metrics    *metricsServer

	// admission orders spawns against shutdown: a spawn adds to live under
	// the read lock only while closing is false.
	admission sync.RWMutex
	closing   atomic.Bool
	live      sync.WaitGroup
	io        closers      // every open I/O resource, closed at shutdown
	dials     atomic.Int32 // connects in flight on helper goroutines (Context.Dial)
	blobs     closers      // every open blob, closed once every task has ended

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
		tree:     supervise.New(),
		registry: metrics.New(),
		rand:     rand.New(cryptoSource{}),
		pool:     newPool(cfg.Parallelism),
	}
	rt.taskMetric = metrics.NewTasks(rt.registry)
	return rt
}

func (rt *runtime) check() {
	if rt.done.Load() {
		panic("realtime: context used after its runtime finished (a Context must not escape Start)")
	}
}

// spawn implements Spawner.SpawnTask for ctx.
func (rt *runtime) spawn(ctx *Context, work simrt.Task) simrt.Aborter {
	rt.check()
	label := ctx.taskLabel()
	label.Spawned.Add(1)
	t := newTask(rt, ctx.name, label, work)
	label.Running.Add(1)
	rt.admission.RLock()
	var node *supervise.Node
	if !rt.closing.Load() {
		node = ctx.supervisor().Spawn(t)
	}
	if node == nil {
		rt.admission.RUnlock()
		t.ended.Store(true)
		t.releaseGauge()
		work.Done(simrt.ErrClosed)
		return simrt.NoAbort{}
	}
	rt.live.Add(1)
	rt.admission.RUnlock()
	t.node = node
	t.spawner = ctx.task
	t.ctx.rt, t.ctx.task, t.ctx.name, t.ctx.attrs = rt, t, ctx.name, ctx.attrs
	go t.run()
	return node
}

// run is the body of a task's goroutine.
func (t *task) run() {
	defer t.rt.live.Done()
	defer t.rt.finish(t) // also after runtime.Goexit
	startGoroutine(t.spawner)
	t.spawner = nil
	t.call(t.body)
}

func (t *task) body() { t.work.Run(&t.ctx) }

// finish does the bookkeeping of a task that ended, on its goroutine.
func (rt *runtime) finish(t *task) {
	t.ended.Store(true)
	t.releaseGauge()
	t.ct.RunExitHooks()
	if s := t.io.Load(); s != nil {
		s.forget()
	}
	var err error
	switch t.outcome {
	case core.OutcomeOK:
	case core.OutcomeAborted, core.OutcomeNone:
		err = simrt.ErrClosed
	case core.OutcomePanicked:
		err = rt.panicked(t)
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
func (rt *runtime) panicked(t *task) error {
	rt.log.Error("task panicked", "task", t.name(), "panic", fmt.Sprint(t.panic.Value), "stack", string(t.panic.Stack))
	switch {
	case rt.closing.Load():
		return simrt.ErrClosed
	case t.root || !rt.cfg.CatchPanics:
		rt.fail(t)
		return simrt.ErrClosed
	default:
		return &simrt.PanicError{Value: t.panic.Value, Stack: t.panic.Stack}
	}
}

// fail records the first uncaught panic and stops the root.
func (rt *runtime) fail(t *task) {
	if !rt.failure.CompareAndSwap(nil, &failure{task: t.name(), value: t.panic.Value, stack: t.panic.Stack}) {
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
	rt.admission.Lock()
	rt.closing.Store(true)
	rt.admission.Unlock()
	rt.tree.Root().Abort()
	if rt.root.ct.Abort() {
		rt.root.closers().interruptAll()
	}
	rt.io.interruptAll() // unblock every task in the kernel...
	rt.live.Wait()       // ...wait until every task goroutine has ended...
	rt.io.closeAll()     // ...then close, with nobody inside
	rt.root.closers().closeAll()
	rt.blobs.closeAll()
	if rt.metrics != nil {
		rt.metrics.close()
	}
	rt.root.label.Running.Add(-1)
	rt.done.Store(true)
}

// cryptoSource is a rand.Source over crypto/rand.
type cryptoSource struct{}

func (cryptoSource) Uint64() uint64 {
	var b [8]byte
	crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
