package deterministic

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"time"
)

// startWatchdog starts the goroutine that notices a task blocked outside
// the runtime (a native channel, sync.Mutex, time.Sleep, real I/O), which
// would freeze the simulation silently. It reads only an atomic progress
// counter, uses the wall clock only to measure the resume (never to decide
// anything inside the simulation), and returns the function that stops it.
func (rt *runtime) startWatchdog() (stop func()) {
	limit := rt.cfg.Watchdog
	if limit < 0 {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() { // watchdog: a native goroutine by design
		defer close(exited)
		tick := time.NewTicker(max(limit/4, time.Millisecond)) // wall clock: watchdog only
		defer tick.Stop()
		last, since := rt.progress.Load(), time.Now() // wall clock: watchdog only
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				p := rt.progress.Load()
				if p != last || rt.externalWait.Load() {
					last, since = p, now
					continue
				}
				if now.Sub(since) >= limit {
					if stacks, blocked := blockedTask(); blocked {
						rt.watchdogFire(now.Sub(since), stacks)
					}
					since = now // busy computing, not blocked: look again later
				}
			}
		}
	}()
	return func() { close(done); <-exited }
}

// blockedTask reports whether a goroutine running a simulated task is
// blocked in the Go runtime (a channel, a lock, a sleep, I/O) rather than
// computing or parked by the executor, and returns every goroutine's stack.
func blockedTask() ([]byte, bool) {
	buf := make([]byte, 1<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "deterministic.(*coroutine).loop") {
			continue
		}
		header, _, _ := strings.Cut(g, "\n")
		_, status, ok := strings.Cut(header, "[")
		if !ok {
			continue
		}
		status, _, _ = strings.Cut(status, "]")
		status, _, _ = strings.Cut(status, ",")
		switch status {
		case "coroutine", "running", "runnable", "syscall":
		default:
			return buf, true
		}
	}
	return buf, false
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
