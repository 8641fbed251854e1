package realtime

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/telemetry/metrics"
)

// runtime is one production runtime: the supervision tree, the task
// goroutines, the shutdown machinery and the resources the contexts share.
// Nothing here is global, so several runtimes may run in one process.
type runtime struct {
	cfg       Config
	log       *slog.Logger
	sh        shell.Runtime      // the tree, shutdown, metrics, failure and end of the run (context.go)
	rootLabel *metrics.TaskLabel // the root task's series
	rand      *rand.Rand
	pool      *pool
	network   netStack // the TCP network and its counters (network.go)
	storage   simrt.Storage
	disk      simrt.Storage // the directory under storage (storage.go)
	metrics   *metricsServer

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

	root *task

	stopReport atomic.Pointer[time.Timer] // the first Stop's report of the tasks left (stuck.go)
}

func newRuntime(cfg Config) *runtime {
	rt := &runtime{
		cfg:      cfg,
		log:      cfg.Logger,
		rand:     rand.New(cryptoSource{}),
		pool:     newPool(cfg.Parallelism),
		liveZero: make(chan struct{}, 1),
	}
	rt.sh.Init("realtime", rt, nil, abortSpawned)
	rt.sh.OnStop = rt.armStopReport // stuck.go
	return rt
}

func (rt *runtime) check() { rt.sh.Check() }

// spawn implements rtapi.Plumbing.SpawnTask for ctx, and
// rtapi.RecordSpawner.SpawnRecord with the record rec (nil for none).
func (rt *runtime) spawn(ctx *Context, work rtapi.Task, rec *core.TaskRecord) rtapi.Aborter {
	rt.check()
	s := shell.ScopeOf(&ctx.shellContext)
	label := s.TaskLabel()
	label.Spawned.Add(1)
	label.Running.Add(1)
	t := newTask(rec)
	t.work = work // its series is label, through its scope
	t.ct.SetBackend(t)
	t.ctx.task = t
	shell.Init(&t.ctx.shellContext, s, nil) // the same runtime, name and attributes
	rt.live.Add(1)
	if rt.closing.Load() || !shell.NodeOf(&ctx.shellContext).SpawnAt(&t.node) {
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
//
// It is core.Task.Call inlined (see call): one deferred call both
// recovers and finishes.
func (t *task) run() {
	out, p := core.OutcomeNone, (*core.Panic)(nil) // OutcomeNone after runtime.Goexit
	defer func() {
		if out == core.OutcomeNone { // a panic, an abort's unwinding, or runtime.Goexit
			out, p = core.Recovered(recover())
		}
		rt := t.rt()
		defer rt.leave()
		rt.finish(t, out, p)
	}()
	if t.rt().netUsed.Load() {
		t.markGoroutine()
	}
	out = t.call()
}

// call is what core.Task.Call does with body, the deferred recover left to
// run: a task aborted before it started does not run its function.
func (t *task) call() core.Outcome {
	if t.ct.IsAborted() {
		return core.OutcomeAborted
	}
	t.body()
	return core.OutcomeOK
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
		if t.ct.IsAborted() {
			// Abort wakes the task before it interrupts the task's
			// closers: the task may get here first, and forget must not
			// drop what the abort is about to interrupt.
			x.closers.interruptAll()
		}
		x.closers.forget()
	}
	if out == core.OutcomePanicked {
		rt.log.Error("task panicked", "task", t.name(), "panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
	}
	err, failed := rt.sh.Result(shell.End{Task: t.name(), Outcome: out, Panic: p,
		Root: t.isRoot(), Catch: rt.cfg.CatchPanics, Closing: rt.closing.Load()})
	if failed {
		rt.abortRoot(t)
	}
	// Abort everything the task spawned before reporting its outcome, so
	// that when Await returns the task's subtree is already aborted (its
	// running gauges released), as in the simulator.
	t.node.Finish()
	if t.work != nil {
		t.work.Done(err)
	}
}

// abortRoot stops the root once t's uncaught panic is the run's failure,
// so that Start re-raises it.
func (rt *runtime) abortRoot(t *task) {
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
	rt.sh.Tree.Root().Abort()
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
	rt.sh.Finish()
	rt.disarmStopReport()
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
