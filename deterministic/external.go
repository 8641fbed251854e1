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
func Pace[T any](ctx simrt.Context, latency time.Duration, f func() T) T {
	c, ok := ctx.(*Context)
	if !ok {
		return f() // production: the real work is the real latency
	}
	c.rt.check()
	result := make(chan T, 1)
	go func() { result <- f() }() // external work: a real goroutine by design
	c.Sleep(latency)
	select {
	case v := <-result:
		return v
	default:
	}
	c.rt.externalWait.Store(true)
	defer c.rt.externalWait.Store(false)
	return <-result // external: block the simulation until the real work is done
}
