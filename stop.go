package simrt

import "github.com/simrt/simrt/internal/core"

// StopSignal fires with the first value given to Stop. While it is held
// (taken with ctx.Stopped before Stop and not yet released), Stop waits for
// it. The runtime releases it when the task that took it ends.
//
// It is the runtime's stop record, seen through the methods
// below; runtimes hand it out by converting that record.
type StopSignal core.StopSignal[Signal, *Signal]

func (ss *StopSignal) rec() *core.StopSignal[Signal, *Signal] {
	return (*core.StopSignal[Signal, *Signal])(ss)
}

// Wait parks until Stop is called and returns its value.
// It panics at the call if ctx is nil.
func (ss *StopSignal) Wait(ctx Caller) int {
	mustContext(ctx == nil, "StopSignal.Wait")
	return ss.rec().Event().Wait(ctx)
}

// Fired returns the stop value and true once Stop has been called.
func (ss *StopSignal) Fired() (int, bool) { return ss.rec().Event().Fired() }

// OnStop is a Select case that completes when Stop is called and passes the
// value to f, which may be nil.
func (ss *StopSignal) OnStop(f func(value int)) Case { return ss.rec().Event().OnFire(f) }

// Release tells Stop that this holder has finished its shutdown work. The
// runtime releases a signal when the task that took it ends; Release may be
// called earlier, and more than once.
func (ss *StopSignal) Release() { ss.rec().Release() }
