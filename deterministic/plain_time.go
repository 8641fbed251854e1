package deterministic

import (
	"math"
	"time"
	"unsafe"

	"github.com/simrt/simrt"
)

// This file is the simulator's side of plain Go's time package: the clock
// (time.now, runtimeNow, runtimeNano), time.Sleep, and the timers behind
// time.Timer, Ticker and AfterFunc (time.newTimer, stopTimer, resetTimer in
// Go 1.26), on simulated time.

// plainNano is the monotonic clock plain Go reads (time.runtimeNano): the
// simulated time in nanoseconds since the Unix epoch, plus one, because Go
// requires it to be positive (a timer due at 0 is refused) and a run may
// start at the epoch. The standard library takes timers' due times
// ("when") on this clock.
func (rt *runtime) plainNano() int64 {
	rt.check()
	return rt.now + 1
}

// plainNow is time.now and time.runtimeNow: the simulated wall clock and
// the monotonic reading, which time.Now keeps in the Time it returns, so
// that Sub and Since between two readings measure simulated time.
func (rt *runtime) plainNow() (sec int64, nsec int32, mono int64) {
	rt.check()
	return rt.now / 1e9, int32(rt.now % 1e9), rt.now + 1
}

// plainSleep is time.Sleep: it parks the running task for d of simulated
// time, returning at once when d <= 0, as Go does.
func (rt *runtime) plainSleep(d time.Duration) {
	t := rt.currentTask()
	if d <= 0 {
		t.ct.Point()
		return
	}
	rt.sleepUntil(addTime(rt.now, d))
}

// plainTimer is one time.Timer or Ticker of plain Go, which the standard
// library made through time.newTimer in a simulation: its due time and
// period on plainNano's clock, and what to call when it fires (time's
// sendTime for a channel timer, goFunc for AfterFunc).
type plainTimer struct {
	rt     *runtime
	when   int64
	period int64
	f      func(arg any, seq uintptr, delta int64)
	arg    any
	isChan bool   // a channel timer: a stop or reset drains its channel
	tm     *timer // the pending simulator timer, nil when stopped or fired
	gen    uint64 // counts stops and resets; a firing of an older generation does nothing
}

// newPlainTimer registers the timer at key (the address of the time.Timer
// the standard library returns) and starts it, as the Go
// runtime's newTimer does (when is always positive: Go refuses others).
func (rt *runtime) newPlainTimer(key unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool) {
	rt.check()
	if rt.plain.timers == nil {
		rt.plain.timers = make(map[unsafe.Pointer]*plainTimer)
	}
	pt := &plainTimer{rt: rt, f: f, arg: arg, isChan: isChan}
	rt.plain.timers[key] = pt
	pt.arm(when, period)
}

// arm starts pt to fire at when (on plainNano's clock), then every period
// if period > 0.
func (pt *plainTimer) arm(when, period int64) {
	pt.when, pt.period = when, period
	pt.gen++
	gen := pt.gen
	d := time.Duration(when - 1 - pt.rt.now)
	if when == math.MaxInt64 { // Go's "never" (time.when saturates there): never due
		d = math.MaxInt64
	}
	pt.tm = pt.rt.afterFunc(d, nil, func() { pt.fire(gen) })
}

// fire runs in the executor when pt is due: the timer's function runs in a
// task of its own, as the Go runtime runs it on a goroutine of its timer
// machinery, so that timers due at one instant run in an order drawn from
// the stream (the executor shuffles the tasks), and what the function does
// (send on a channel, start a goroutine) goes through the simulator.
func (pt *plainTimer) fire(gen uint64) {
	rt := pt.rt
	if gen != pt.gen || rt.closing || rt.plain.ctx == nil {
		return
	}
	pt.tm = nil
	delta := rt.now + 1 - pt.when
	f, arg := pt.f, pt.arg
	if pt.period > 0 {
		next := pt.when + pt.period*(1+delta/pt.period)
		pt.arm(next, pt.period)
	}
	simrt.Spawn(rt.plain.ctx.Child("timer"), func(simrt.Context) struct{} {
		f(arg, 0, delta)
		return struct{}{}
	})
}

// stop stops pt and reports whether it was pending. A channel timer's
// channel is drained, so that no value sent before the stop is received
// after it (Go 1.23's timer channels); a value drained counts as pending,
// as in Go, where an expiry nobody received is still to come.
func (pt *plainTimer) stop() bool {
	pending := false
	if pt.tm != nil {
		pending = pt.tm.Stop()
		pt.tm = nil
	}
	pt.gen++
	if pt.isChan {
		if c, ok := pt.arg.(chan time.Time); ok {
			select {
			case <-c:
				pending = true
			default:
			}
		}
	}
	return pending
}

// stopPlainTimer is time.stopTimer for the timer at key; ok is false when
// key is not a timer of this simulation (the caller then asks the Go
// runtime).
func (rt *runtime) stopPlainTimer(key unsafe.Pointer) (pending, ok bool) {
	rt.check()
	pt := rt.plain.timers[key]
	if pt == nil {
		return false, false
	}
	return pt.stop(), true
}

// resetPlainTimer is time.resetTimer: stop, then start at when (every
// period if period > 0); pending says whether the timer was pending.
func (rt *runtime) resetPlainTimer(key unsafe.Pointer, when, period int64) (pending, ok bool) {
	rt.check()
	pt := rt.plain.timers[key]
	if pt == nil {
		return false, false
	}
	pending = pt.stop()
	pt.arm(when, period)
	return pending, true
}
