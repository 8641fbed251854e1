package deterministic

import (
	"context"
	"fmt"
	"os"
	"path"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// startWatchdog arms the watchdog that notices a task blocked outside the
// runtime (a native channel, sync.Mutex, time.Sleep, real I/O), which would
// freeze the simulation silently, and returns the function that disarms it.
// The watchdog reads only an atomic progress counter and uses the wall
// clock only to measure the resume (never to decide anything inside the
// simulation).
//
// Its goroutine starts lazily, at its first look (a quarter of the limit
// after the start): most runs of a sweep end long before, and then all the
// watchdog cost them is one runtime timer, not a goroutine and a ticker.
func (rt *runtime) startWatchdog() (stop func()) {
	limit := rt.cfg.Hooks.Watchdog
	if limit < 0 {
		return func() {}
	}
	period := max(limit/4, time.Millisecond)
	done := make(chan struct{})
	exited := make(chan struct{})
	last, since := rt.progress.Load(), time.Now() // wall clock: watchdog only
	timer := time.AfterFunc(period, func() {      // watchdog: a native goroutine by design
		defer close(exited)
		rt.watch(limit, period, last, since, done)
	})
	return func() {
		if timer.Stop() {
			return // the run ended before the watchdog's first look
		}
		close(done)
		<-exited
	}
}

// watch is the watchdog's goroutine: it looks every period, from its first
// look on, until done is closed. last and since are the progress counter
// and the wall time when the watchdog was armed.
func (rt *runtime) watch(limit, period time.Duration, last uint64, since time.Time, done <-chan struct{}) {
	tick := time.NewTicker(period) // wall clock: watchdog only
	defer tick.Stop()
	now := time.Now() // wall clock: the first look is now
	for {
		select {
		case <-done: // disarmed while a tick was pending
			return
		default:
		}
		p := rt.progress.Load()
		if p != last || rt.externalWait.Load() {
			last, since = p, now
		} else if now.Sub(since) >= limit {
			if stack, ok := rt.blockedTask(); ok {
				// p was loaded after the resume set rt.current and the
				// clock (executor's resume), and the task stays blocked.
				rt.giveUp(now.Sub(since), stack)
				return
			}
			since = now // busy computing, not blocked: look again later
		}
		select {
		case <-done:
			return
		case now = <-tick.C:
		}
	}
}

// Which goroutines are this runtime's tasks? Several simulations may run in
// one process (simtest sweeps run them in parallel), and while one waits in
// Pace on real work its task's goroutine is blocked in a channel receive,
// which another simulation's watchdog must not take for its own stuck task.
// Go has no goroutine-local storage, but every goroutine carries a profiler
// label set, which the goroutine profile reports beside each stack: a task
// coroutine labels itself simrt_simulation=<the runtime's address> when it
// starts a task of a runtime other than its previous one (a coroutine may
// move between runs; runs that share a Coroutines pool, one after another,
// share a label), and the watchdog looks only at the
// goroutines that carry its runtime's label and run a task coroutine. A
// task that replaces its goroutine's labels itself (pprof.Do,
// SetGoroutineLabels) is not watched while they are in place.

// watchdogLabel is the profiler label key of a task coroutine's runtime.
const watchdogLabel = "simrt_simulation"

// newLabels makes the profiler label set that marks the task coroutines of
// the runtime (or of the runs sharing a Coroutines pool, which never run at
// once) identified by owner's address.
func newLabels(owner any) (labels context.Context, id string) {
	id = fmt.Sprintf("%p", owner)
	return pprof.WithLabels(context.Background(), pprof.Labels(watchdogLabel, id)), id
}

// initLabels gives rt the label set of its task coroutines: its pool's,
// when it borrows one, so that pooled coroutines keep theirs.
func (rt *runtime) initLabels() {
	if p := rt.pooled; p != nil {
		rt.labels, rt.labelID = p.labels, p.labelID
		return
	}
	rt.labels, rt.labelID = newLabels(rt)
}

// blockedTask reports whether a goroutine running one of rt's tasks is
// blocked in the Go runtime (a channel, a lock, a sleep, I/O) rather than
// computing, in a system call or parked by the executor, and returns its
// stack cut to the user's frames (userFrames).
func (rt *runtime) blockedTask() (stack string, ok bool) {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return "", false
	}
	rec, ok := blockedIn(b.String(), fmt.Sprintf("%q:%q", watchdogLabel, rt.labelID))
	if !ok {
		return "", false
	}
	return userFrames(rec), true
}

// profileDepth is the stack depth from which a goroutine profile record may
// have lost its outermost frames (the profile keeps 128 by default).
const profileDepth = 100

// blockedIn reports whether the goroutine profile (debug=1 text) has a
// goroutine labelled label that runs a task coroutine (or whose stack is
// too deep to tell) and is parked in the Go runtime, and returns its
// record. A goroutine parked by the executor waits in runtime.coroswitch,
// one blocked by a native call in runtime.gopark; a computing one is
// stopped wherever it was.
func blockedIn(profile, label string) (record string, ok bool) {
	for _, rec := range strings.Split(profile, "\n\n") {
		head, rest, _ := strings.Cut(rec, "\n")
		labels, _, _ := strings.Cut(rest, "\n")
		if !strings.HasPrefix(labels, "# labels: ") || !strings.Contains(labels, label) {
			continue
		}
		_, pcs, ok := strings.Cut(head, " @ ")
		if !ok {
			continue
		}
		frames := strings.Fields(pcs)
		if len(frames) == 0 {
			continue
		}
		if !strings.Contains(rest, "deterministic.(*coroutine).loop") && len(frames) < profileDepth {
			continue // a goroutine the task started, not the task
		}
		pc, err := strconv.ParseUint(strings.TrimPrefix(frames[0], "0x"), 16, 64)
		if err != nil || pc == 0 {
			continue
		}
		if f := goruntime.FuncForPC(uintptr(pc) - 1); f != nil {
			switch f.Name() {
			case "runtime.gopark", "runtime.goparkunlock":
				return rec, true
			}
		}
	}
	return "", false
}

// moduleDir is the directory of simrt's sources as the binary's frames
// name them (with -trimpath, the module path), the parent of this file's.
var moduleDir = func() string {
	_, file, _, _ := goruntime.Caller(0)
	return path.Dir(path.Dir(file)) + "/"
}()

// userFrames renders the frames of a goroutine profile record (debug=1:
// "#\t0xpc\tfunction+0xoff\tfile:line" lines) that the user wrote or
// called: it leaves out the Go runtime's own frames (the park), the
// standard library's internal packages, iter's coroutine and simrt's
// machinery (its non-test sources outside examples and cmd), so that what
// remains starts at the call that blocks (time.Sleep, sync.(*Mutex).Lock)
// or the user's line that blocks on a channel, and ends at the task's
// function. One "function\n\tfile:line" pair a frame.
func userFrames(record string) string {
	var b strings.Builder
	for _, line := range strings.Split(record, "\n") {
		if !strings.HasPrefix(line, "#\t0x") {
			continue
		}
		f := strings.Fields(line) // "#", pc, function+offset, file:line
		if len(f) != 4 {
			continue
		}
		fn, file := f[2], f[3]
		if i := strings.LastIndex(fn, "+0x"); i >= 0 {
			fn = fn[:i]
		}
		if !userFrame(fn, file) {
			continue
		}
		fmt.Fprintf(&b, "%s\n\t%s\n", fn, file)
	}
	return b.String()
}

// userFrame reports whether the frame of function fn at file (file:line)
// is the user's (see userFrames).
func userFrame(fn, file string) bool {
	for _, p := range []string{"runtime.", "internal/", "iter."} {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	rel, ok := strings.CutPrefix(file, moduleDir)
	if !ok {
		return true
	}
	name, _, _ := strings.Cut(rel, ":")
	return strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "examples/") || strings.HasPrefix(name, "cmd/")
}

// Abandoning a run. While the watchdog is on, Start runs the simulation on
// a goroutine of its own (runWatched) and waits for it, or for the
// watchdog's verdict. A run whose task is blocked in a native call cannot
// be unwound (the task's goroutine is not ours to stop, and its stack holds
// the executor's resume), so the watchdog gives up on it: it marks the run
// abandoned and hands Start the verdict, which Start panics with on the
// caller's goroutine; the run's goroutines leak. Should the native call
// ever return, the executor leaves (runtime.Goexit) at its next resume's
// end, before it runs anything else of the user's: no cleanup, no hook.

// The states of a watched run: running, ended (Start got its outcome) or
// abandoned (Start got the watchdog's verdict). Only one of the last two
// happens, by compare-and-swap.
const (
	runRunning int32 = iota
	runEnded
	runAbandoned
)

// watchdogState is what the run's goroutine, the watchdog and Start share.
type watchdogState struct {
	state atomic.Int32
	fired chan *Verdict // the watchdog's verdict, once; nil when unwatched
}

func (w *watchdogState) abandoned() bool { return w.state.Load() == runAbandoned }

// leaveIfAbandoned ends the run's goroutine when the watchdog has given up
// on the run: called after each resume, before anything else runs.
func (rt *runtime) leaveIfAbandoned() {
	if rt.watchdog.abandoned() {
		goruntime.Goexit()
	}
}

// giveUp abandons the run, unless it has just ended, and hands Start the
// verdict: the task rt is resuming is blocked in a native call, for stuck
// of real time, and stack is its user's frames.
func (rt *runtime) giveUp(stuck time.Duration, stack string) {
	v := &Verdict{Err: ErrNativeBlock, Time: time.Unix(0, rt.now).UTC(), Stack: stack, Stuck: stuck}
	if t := rt.current; t != nil {
		v.Tasks = []TaskState{{ID: t.id, Name: t.name, Running: true}}
	}
	if rt.watchdog.state.CompareAndSwap(runRunning, runAbandoned) {
		rt.watchdog.fired <- v
	}
}

// runEnd is how a watched run's goroutine ended.
type runEnd struct {
	cp       *Checkpoint
	returned bool // else it panicked with value, or called runtime.Goexit (value nil)
	value    any
}

// runWatched runs the simulation on a goroutine of its own under the
// watchdog and returns or panics as run does, on the caller's goroutine;
// a runtime.Goexit in the run (t.FailNow in a task) ends the caller's
// goroutine too. If the watchdog gives up on the run first, it panics with
// the watchdog's verdict and leaves the run's goroutines behind.
func (rt *runtime) runWatched(cfg Config) *Checkpoint {
	fired := make(chan *Verdict, 1)
	rt.watchdog.fired = fired
	done := make(chan runEnd, 1)
	stop := rt.startWatchdog()
	go func() { // the run's goroutine: the watchdog may have to abandon it
		var end runEnd
		defer func() {
			if !end.returned {
				end.value = recover() // nil: runtime.Goexit
			}
			if rt.watchdog.state.CompareAndSwap(runRunning, runEnded) {
				done <- end
			}
		}()
		end.cp = rt.run(cfg, stop)
		end.returned = true
	}()
	select {
	case end := <-done:
		switch {
		case end.returned:
			return end.cp
		case end.value == nil:
			goruntime.Goexit()
		}
		panic(end.value)
	case v := <-fired:
		if p := cfg.Hooks.Coroutines; p != nil {
			// Free the pool for the worker's next run: the abandoned run
			// never gives it back (its idle coroutines leak with it).
			p.Put(nil)
		}
		fmt.Fprintf(os.Stderr, "deterministic: watchdog: gave up on a run whose task is blocked in a native Go call; "+
			"its goroutines are abandoned and leak until the process exits\n")
		panic(v)
	}
}
