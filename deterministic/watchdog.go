package deterministic

import (
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
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
			if rt.blockedTask() {
				rt.watchdogFire(now.Sub(since), allStacks())
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
// computing, in a system call or parked by the executor.
func (rt *runtime) blockedTask() bool {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		return false
	}
	return blockedIn(b.String(), fmt.Sprintf("%q:%q", watchdogLabel, rt.labelID))
}

// profileDepth is the stack depth from which a goroutine profile record may
// have lost its outermost frames (the profile keeps 128 by default).
const profileDepth = 100

// blockedIn reports whether the goroutine profile (debug=1 text) has a
// goroutine labelled label that runs a task coroutine (or whose stack is
// too deep to tell) and is parked in the Go runtime. A goroutine parked by
// the executor waits in runtime.coroswitch, one blocked by a native call in
// runtime.gopark; a computing one is stopped wherever it was.
func blockedIn(profile, label string) bool {
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
				return true
			}
		}
	}
	return false
}

// allStacks returns every goroutine's stack, for the watchdog's message.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:goruntime.Stack(buf, true)]
}

func (rt *runtime) watchdogFire(stuck time.Duration, buf []byte) {
	name := "<unknown>"
	if t := rt.current; t != nil { // racy read, for the message only
		name = t.name
		if name == "" {
			name = "<root>"
		}
	}
	msg := fmt.Sprintf("deterministic: watchdog: task %q has not parked for %v of real time; "+
		"it is probably blocked in a native Go call (channel, sync.Mutex, time.Sleep, real I/O). "+
		"Inside a simulation, block only through simrt primitives (simrt.Chan, simrt.Mutex, ctx.Sleep, ...).\n\n%s",
		name, stuck.Round(time.Millisecond), buf)
	fmt.Fprintln(os.Stderr, msg)
	panic(msg)
}
