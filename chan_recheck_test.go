package simrt_test

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// TestChanRecvCompletedWhileRechecking forces the window a plain Recv's
// look under the lock exists for: the receiver is woken before any sender
// arrives (a stale wake, pending before it parks), finds its waiter not
// Done, and before it takes the channel's lock again a sender claims the
// waiter and hands it 1 (from the hook, on the receiver's own goroutine,
// so the order is fixed). The Recv must return 1 and leave nothing on the
// channel's queue: a TrySend of 2 afterwards finds no receiver (it is
// buffered, or refused on an unbuffered channel). A Recv that trusted its
// lock-free look would queue its waiter again and return with it still
// queued, recycled, where the TrySend claims it (and crashes on its reset
// task).
func TestChanRecvCompletedWhileRechecking(t *testing.T) {
	runtimes := []struct {
		name  string
		start func(root func(simrt.Context))
	}{
		{"realtime", func(root func(simrt.Context)) {
			realtime.New(realtime.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Start(root)
		}},
		{"deterministic", func(root func(simrt.Context)) {
			deterministic.Seeded(1).Start(func(ctx *deterministic.Context) { root(ctx) })
		}},
	}
	for _, capacity := range []int{0, 1} {
		for _, rt := range runtimes {
			name := fmt.Sprintf("%s, capacity %d", rt.name, capacity)
			var c *simrt.Chan[int]
			fired := 0
			restore := simrt.SetBeforeRecheck(func() {
				if fired++; fired == 1 && !c.TrySend(1) {
					t.Errorf("%s: the parked receiver was not there to take 1", name)
				}
			})
			rt.start(func(ctx simrt.Context) {
				c = simrt.NewChan[int](capacity)
				ctx.CurrentTask().Unpark() // the stale wake: Recv's park returns at once
				if v, ok := c.Recv(ctx); v != 1 || !ok {
					t.Errorf("%s: Recv = %d, %v; want 1, true", name, v, ok)
				}
				sent, err := trySendRecovered(c, 2)
				switch {
				case err != nil:
					t.Errorf("%s: TrySend after the Recv found its waiter still queued: %v", name, err)
				case sent != (capacity > 0):
					t.Errorf("%s: TrySend after the Recv = %v, want %v", name, sent, capacity > 0)
				case sent:
					if v, ok := c.TryRecv(); v != 2 || !ok {
						t.Errorf("%s: TryRecv = %d, %v; want 2, true", name, v, ok)
					}
				}
			})
			restore()
			if fired == 0 {
				t.Errorf("%s: the receiver never looked again after its wake", name)
			}
		}
	}
}

// trySendRecovered is c.TrySend(v), with a panic returned as an error.
func trySendRecovered(c *simrt.Chan[int], v int) (sent bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return c.TrySend(v), nil
}
