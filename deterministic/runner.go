package deterministic

import (
	"net/netip"
	"time"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/rtapi"
)

// Runner runs one simulation. Make it with New, Seeded, Timed or
// FromCheckpoint, then call Start or StartAndRecover once.
type Runner struct {
	cfg     Config
	cp      *Checkpoint
	started bool
}

// New returns a runner for cfg. It panics, naming the field,
// if cfg is invalid (a negative Cycle, a StartTime before the Unix epoch).
func New(cfg Config) *Runner { return &Runner{cfg: cfg.validate()} }

// Seeded returns a runner with the default configuration and the given seed.
func Seeded(seed uint64) *Runner { return New(Config{Seed: seed}) }

// Timed returns a runner with the default configuration that stops with the
// panic "runtime timeout" after timeout of simulated time.
func Timed(timeout time.Duration) *Runner { return New(Config{Timeout: timeout}) }

// Checkpoint is what a finished simulation leaves for the next one: the
// simulated time, the generator's state, the auditor, the durable storage
// (after the crash at the end of the run), each node's disk by node name,
// the storage fault configuration, the DNS table and the panic policy. Tasks, connections and
// the shutdown signal do not carry over. A Checkpoint can be resumed once.
type Checkpoint struct {
	cfg     Config
	now     int64
	end     int64
	hasEnd  bool
	stream  *stream
	auditor *Auditor
	dns     map[string][]netip.Addr
	storage storageCheckpoint
	disks   map[string]storageCheckpoint // each node's disk, by node name
	used    bool
}

// Auditor returns a copy of the auditor as it was when the run ended: its
// State, and its event log when Config.Hooks.EventLog kept one. The copy stays as
// it is after the checkpoint is resumed (the resumed run continues from
// another copy), and events recorded on it change nothing else. Each call
// returns a new copy, so with a large event log keep the one you need.
func (cp *Checkpoint) Auditor() *Auditor { return cp.auditor.snapshot() }

// Time returns the simulated time at which the run ended.
func (cp *Checkpoint) Time() time.Time { return time.Unix(0, cp.now).UTC() }

// FromCheckpoint returns a runner that continues from cp: same time,
// generator, auditor, durable storage, fault configuration and DNS table.
// It panics if cp was already resumed.
func FromCheckpoint(cp *Checkpoint) *Runner {
	if cp.used {
		panic("deterministic.FromCheckpoint: checkpoint already resumed")
	}
	cp.used = true
	return &Runner{cfg: cp.cfg, cp: cp}
}

// Start runs root as the root task until it returns, and then unwinds every
// task still alive (their deferred calls run), crashes the simulated storage
// (unsynced writes resolved by the fault configuration) and returns.
//
// Start panics with a *Verdict when no task can make progress and no timer
// is pending (its text starts "runtime stalled"; errors.Is ErrStalled) and
// past Config.Timeout ("runtime timeout"; ErrRunTimeout), after
// Config.LivelockSteps resumes without simulated time advancing or a task
// ending ("runtime livelock"; ErrLivelock), and with a
// task's own panic value when a task panics and CatchPanics is off; all of
// these after the cleanup above. Results leave through the closure. It
// panics at the call, running nothing, if root is nil.
//
// When a task blocks in a native Go call (a channel, sync.Mutex,
// time.Sleep, real I/O) for Config.Hooks.Watchdog of real time, Start
// panics with a *Verdict (errors.Is ErrNativeBlock) that names the task and
// shows its stack: the run is abandoned, not cleaned up, and its goroutines
// (the stuck task's and the executor's) leak until the process exits, but
// the caller goes on. For that the run executes on a goroutine of its own
// while the watchdog is on; a runtime.Goexit in a task (t.FailNow) still
// ends the caller's goroutine.
func (r *Runner) Start(root func(ctx *Context)) {
	mustRoot(root == nil, "Start")
	r.StartAndRecover(root)
}

// mustRoot panics, naming fn, if the root function given to fn is nil:
// the run would otherwise fail as a nil call inside the root task.
func mustRoot(isNil bool, fn string) {
	if isNil {
		panic("deterministic.Runner: " + fn + " called with a nil function")
	}
}

// StartAndRecover is Start that also returns the Checkpoint to resume from
// with FromCheckpoint, as after an unclean shutdown.
func (r *Runner) StartAndRecover(root func(ctx *Context)) *Checkpoint {
	mustRoot(root == nil, "StartAndRecover")
	if r.started {
		panic("deterministic.Runner: Start called twice (make a new Runner, or resume a Checkpoint)")
	}
	r.started = true
	rt := newRuntime(r.cfg, r.cp)
	if r.cp != nil {
		rt.nodes.disks = r.cp.disks
	}
	rt.initStorage(r.cp)
	ctx := rt.rootContext()
	rt.initNetwork(ctx)
	rt.root = &task{name: "", root: true, label: rt.sh.Tasks.Label("", "Root"), fn: func() { root(ctx) }}
	rt.root.label.Spawned.Add(1)
	rt.root.label.Running.Add(1)
	rt.admit(rt.root)

	if r.cfg.Hooks.Watchdog < 0 {
		return rt.run(r.cfg, func() {})
	}
	return rt.runWatched(r.cfg)
}

// run runs the simulation to its end on the calling goroutine: the loop,
// then the cleanup, then the run's panic if it has one. stopWatchdog is
// called once the cleanup is done.
func (rt *runtime) run(cfg Config, stopWatchdog func()) *Checkpoint {
	defer stopWatchdog()
	var cp *Checkpoint
	defer func() {
		// Reached with cp == nil only when a task called runtime.Goexit
		// (t.FailNow): still clean up, so nothing leaks. Not when the
		// watchdog abandoned the run: its caller has gone on, and the
		// goroutine leaving here must run nothing of the user's.
		if cp == nil && !rt.watchdog.abandoned() {
			if t := rt.current; t != nil && rt.after != nil {
				rt.after(t.name, time.Unix(0, rt.now).UTC())
			}
			rt.cleanup(cfg)
		}
	}()
	var loopPanic any
	func() {
		defer func() { loopPanic = recover() }()
		rt.loop()
	}()
	cp = rt.cleanup(cfg)
	if f := rt.sh.Failure(); f != nil {
		panic(f.Value)
	}
	if loopPanic != nil {
		panic(loopPanic)
	}
	return cp
}

// rootContext returns the root task's context, which the simulated
// network also works through.
func (rt *runtime) rootContext() *Context {
	c := &Context{rt: rt}
	shell.Init(&c.shellContext, rt.sh.NewScope("", nil), rt.sh.Tree.Root())
	return c
}

// cleanup unwinds every remaining task in id order, crashes storage and
// builds the checkpoint. After it, any use of a context panics.
func (rt *runtime) cleanup(cfg Config) *Checkpoint {
	rt.closing = true
	rt.current = nil
	rt.sh.Tree.Root().Abort()
	if rt.root != nil && !rt.root.finished {
		rt.root.ct.Abort()
	}
	rt.timers.clear()
	for t := rt.live.head; t != nil; t = rt.live.head {
		t.ct.Abort()
		rt.ready = rt.ready[:0]
		rt.current = t
		rt.progress.Add(1) // for the watchdog, as a resume
		finished, _ := t.next()
		rt.leaveIfAbandoned()
		rt.current = nil
		if !finished {
			// Park panics for aborted tasks, so a task cannot park again
			// while unwinding; stop its coroutine regardless.
			t.co.stop()
			t.co.t, t.co = nil, nil
		}
		rt.finish(t)
	}
	rt.giveBack()
	rt.ready, rt.spare = nil, nil
	storage := rt.crashStorage()
	disks := rt.crashNodes()
	rt.finishProperties()
	rt.sh.Finish()
	return &Checkpoint{
		cfg: cfg, now: rt.now, end: rt.end, hasEnd: rt.hasEnd, stream: rt.stream,
		auditor: rt.auditor, dns: rt.dns, storage: storage, disks: disks,
	}
}

var _ core.Backend = (*task)(nil)
var _ rtapi.Plumbing = (*Context)(nil)
