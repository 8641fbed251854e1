package realtime

import (
	"fmt"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
)

// Runner runs one production runtime. Make it with New and call Start once.
type Runner struct {
	cfg     Config
	started atomic.Bool
}

// New returns a runner for cfg. It panics, naming the field, if cfg is
// invalid (a negative Parallelism or timeout).
func New(cfg Config) *Runner { return &Runner{cfg: cfg.validate()} }

// Start runs root as the root task on the calling goroutine until it
// returns, and then shuts down: admission of new tasks closes, every task
// still alive is aborted (it unwinds at its next park, and real I/O it is
// blocked in is closed), and Start returns only once every task goroutine
// has ended. Results leave through the closure.
//
// Start returns the value given to the first ctx.Stop of the run (0 if
// nobody called Stop), which a program can turn into its exit code (see
// Main). It returns an error, and runs nothing, if the runtime cannot be
// set up: the storage directory cannot be made durable, or
// Config.MetricsAddr cannot be bound (the error wraps the operating
// system's, so errors.Is(err, syscall.EADDRINUSE) tells a busy port).
//
// When a task panics and Config.CatchPanics is off, the root is aborted and
// Start re-panics with the task's panic value after that shutdown; the
// root's own panic always propagates, also after the shutdown. Past
// Config.Timeout the root is aborted too, and Start panics with an error
// matching ErrRunTimeout after the shutdown. Start panics if it is called
// twice, or with a nil root (running nothing).
//
// A task blocked outside the runtime in something the runtime cannot
// interrupt (a native channel, time.Sleep, a sync.Mutex, a busy loop) holds
// Start until it returns.
func (r *Runner) Start(root func(ctx simrt.Context)) (stop int, err error) {
	if root == nil {
		panic("realtime.Runner: Start called with a nil function")
	}
	if !r.started.CompareAndSwap(false, true) {
		panic("realtime.Runner: Start called twice (make a new Runner)")
	}
	if err := syncStorageDir(r.cfg.StorageDirectory, r.cfg.Logger); err != nil {
		return 0, fmt.Errorf("realtime: cannot make the storage directory durable at startup (Config.StorageDirectory %q): %w", r.cfg.StorageDirectory, err)
	}
	rt := newRuntime(r.cfg)
	if r.cfg.MetricsAddr != "" {
		m, err := startMetrics(r.cfg.MetricsAddr, r.cfg.Metrics, rt.sh.Registry, rt.log)
		if err != nil {
			return 0, err
		}
		rt.metrics = m
	}
	rt.initStorage()
	rt.initNetwork()
	label := rt.sh.Tasks.Label("", "Root")
	label.Spawned.Add(1)
	label.Running.Add(1)
	rt.rootLabel = label
	rt.root = &task{}
	rt.root.ct.SetBackend(rt.root)
	ctx := &rt.root.ctx
	ctx.task = rt.root
	shell.Init(&ctx.shellContext, rt.sh.NewScope("", nil), rt.sh.Tree.Root())
	// A stop signal taken and released at once holds up no Stop, and
	// tells the stop value once Stop has been called.
	stopped := rt.sh.Shutdown.Stopped(nil)
	stopped.Release()

	closed := false
	defer func() {
		// Reached without closed only when the root called runtime.Goexit
		// (t.FailNow): still shut down, so nothing leaks.
		if !closed {
			rt.close()
		}
	}()
	disarm := rt.armTimeout(r.cfg.Timeout)
	defer disarm() // also when the root called runtime.Goexit
	out, p := rt.root.ct.Call(func() {
		label.Polls.Add(1)
		root(ctx)
	})
	// A timeout during the shutdown is no timeout of the run.
	disarm()
	rt.root.unmarkGoroutine() // the caller's goroutine gets its labels back
	rt.root.end()
	rt.marked.remove(rt.root)
	rt.root.ct.RunExitHooks()
	if x := rt.root.io.Load(); x != nil {
		x.closers.forget()
	}
	if out == core.OutcomePanicked {
		rt.log.Error("task panicked", "task", "", "panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
		rt.sh.Fail("", p)
	}
	rt.close()
	closed = true
	if f := rt.sh.Failure(); f != nil {
		panic(f.Value)
	}
	stop, _ = stopped.Event().Fired()
	return stop, nil
}
