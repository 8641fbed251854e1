package deterministic

import (
	"time"

	"github.com/simrt/simrt"
)

// Pace runs f on a real goroutine (it may talk to real processes, but must
// not touch the simulation) and returns its result to the calling task no
// earlier than latency of simulated time from now. If f has not finished by
// then, the whole simulation waits for it, so the result always arrives at
// the same simulated time whatever the real timing: the run stays
// deterministic as long as f's result depends only on its inputs.
//
// Pace is meant for pacing mode (Config.External), where the executor sleeps
// a real cycle per iteration so external processes make progress; outside
// pacing mode it works the same but simulated time may run far ahead of the
// real process.
//
// On a context of any other runtime (production's realtime.Context), Pace
// is a no-op pacer: it calls f on the calling
// task and returns its result, ignoring latency. Code that paces therefore
// runs unchanged on both runtimes. A simulation's context is recognised as
// such only when it is the *Context the simulator handed out (as for From),
// not a wrapper around one.
//
// f must not be nil: Pace panics at once if it is. A panic in f is caught
// on its goroutine and raised again in the calling task, with the same
// value, at the time the result would have arrived, so the run reports it as
// any task panic.
func Pace[T any](ctx simrt.Context, latency time.Duration, f func() T) T {
	if f == nil {
		panic("deterministic.Pace: nil f")
	}
	c, ok := ctx.(*Context)
	if !ok {
		return f() // production: the real work is the real latency
	}
	c.rt.check()
	result := make(chan paced[T], 1)
	go runPaced(f, result) // external work: a real goroutine by design
	c.Sleep(latency)
	var r paced[T]
	select {
	case r = <-result:
	default:
		c.rt.externalWait.Store(true)
		r = <-result // external: block the simulation until the real work is done
		c.rt.externalWait.Store(false)
	}
	if r.panicked {
		if r.p == nil {
			panic("deterministic.Pace: f called runtime.Goexit")
		}
		panic(r.p)
	}
	return r.v
}

// paced is the outcome of a Pace function: its result, or its panic.
type paced[T any] struct {
	v        T
	panicked bool
	p        any // the panic value; nil after a runtime.Goexit
}

// runPaced runs f and sends its outcome, even if f panics or exits its
// goroutine, so that neither crashes the process nor hangs the simulation.
func runPaced[T any](f func() T, result chan<- paced[T]) {
	r := paced[T]{panicked: true}
	defer func() {
		if r.panicked {
			r.p = recover()
		}
		result <- r
	}()
	r.v = f()
	r.panicked = false
}
