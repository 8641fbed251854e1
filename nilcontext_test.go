package simrt_test

import (
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

// Every primitive that takes a Context panics at the call when it is nil,
// with a message naming the call, on both runtimes: not as a bare nil
// dereference inside the primitive (or later, inside Select or a timer),
// and whether or not the call would have parked.
func TestNilContextPanicsAtTheCall(t *testing.T) {
	onBothRuntimes(t, func(t *testing.T, ctx simrt.Context) {
		var (
			mu       simrt.Mutex
			rw       simrt.RWMutex
			wg       simrt.WaitGroup
			sig      = simrt.NewSignal()
			one      = simrt.NewOneshot[int]()
			ticker   = simrt.NewTicker(ctx, time.Hour)
			tc, stop = simrt.GoContext(ctx)
			stopped  = ctx.Stopped()
			done     = storage.Ready(1, nil)
		)
		defer ticker.Stop()
		stop() // a cancelled context: Wait would not park
		sig.Fire(1)
		one.Send(1) // a sent oneshot: Recv would not park
		cases := []struct {
			want string
			call func()
		}{
			{"Mutex.Lock", func() { mu.Lock(nil) }},
			{"RWMutex.Lock", func() { rw.Lock(nil) }},
			{"RWMutex.RLock", func() { rw.RLock(nil) }},
			{"WaitGroup.Wait", func() { wg.Wait(nil) }},
			{"Signal.Wait", func() { sig.Wait(nil) }},
			{"Oneshot.Recv", func() { one.Recv(nil) }},
			{"NewTicker", func() { simrt.NewTicker(nil, time.Second) }},
			{"Ticker.Recv", func() { ticker.Recv(nil) }},
			{"TaskContext.Wait", func() { tc.Wait(nil) }},
			{"StopSignal.Wait", func() { stopped.Wait(nil) }},
			{"After", func() { simrt.After(nil, time.Second, nil) }},
			{"SelectHandles", func() { simrt.SelectHandles(nil, done) }},
			{"Logger", func() { simrt.Logger(nil) }},
		}
		for _, c := range cases {
			want := "simrt: " + c.want + " called with a nil Context"
			if got := panicText(c.call); got != want {
				t.Errorf("%s(nil): panic %q, want %q", c.want, got, want)
			}
		}
		// The refused calls changed nothing: the locks are free, the
		// handle given to SelectHandles was not aborted.
		if !mu.TryLock() || !rw.TryLock() {
			t.Errorf("a refused Lock(nil) left a mutex locked")
		}
		if v, err := done.Await(ctx); v != 1 || err != nil {
			t.Errorf("after SelectHandles(nil): Await = %d, %v", v, err)
		}
		if !strings.HasPrefix(panicText(func() { simrt.NewTicker(nil, 0) }), "simrt: NewTicker called with a nil Context") {
			t.Errorf("NewTicker(nil, 0) does not name the nil Context first")
		}
	})
}
