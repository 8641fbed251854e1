package clock

import (
	"time"

	"github.com/simrt/simrt"
)

func elapsed(ctx simrt.Context, start time.Time) time.Duration {
	now := time.Now()         // want `time.Now reads the wall clock; use ctx.Now\(\)`
	d := time.Since(start)    // want `time.Since reads the wall clock; use ctx.Now\(\).Sub\(t\)`
	time.Sleep(time.Second)   // want `time.Sleep sleeps in real time`
	_ = time.Until(start)     // want `time.Until reads the wall clock`
	<-time.After(time.Second) // want `time.After waits in real time` `native channel receive`
	t := time.NewTimer(d)     // want `time.NewTimer waits in real time`
	_ = t
	_ = time.Tick(d) // want `time.Tick ticks in real time`
	_ = time.Duration(3) * time.Millisecond
	return now.Sub(start)
}

// noCtx has no ctx in scope: no fix.
func noCtx() time.Time {
	return time.Now() // want `time.Now reads the wall clock`
}

// wrongCtx has a ctx without a clock: no fix.
func wrongCtx(ctx int) time.Time {
	_ = ctx
	return time.Now() // want `time.Now reads the wall clock`
}

// Values count too, not only calls.
var nowFunc = time.Now // want `time.Now reads the wall clock`
