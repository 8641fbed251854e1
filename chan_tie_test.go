package simrt_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// tieRuntimes are the runtimes the tie tests run on. The simulator runs
// without scheduling points, so that the hook's TrySend or TryRecv does
// not yield (and unwind) inside the hook.
var tieRuntimes = []struct {
	name  string
	start func(root func(simrt.Context))
}{
	{"realtime", func(root func(simrt.Context)) {
		realtime.New(realtime.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Start(root)
	}},
	{"deterministic", func(root func(simrt.Context)) {
		deterministic.New(deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}).
			Start(func(ctx *deterministic.Context) { root(ctx) })
	}},
}

// TestChanTimeoutTieAfterRepark forces the window between a Recv or Send
// (plain, or a Select's case) queueing its waiter again and parking, after its Timeout ran out
// (the deadline woke it, it found nothing and parked again): a partner
// completes the waiter there (from the hook, on the parking task's own
// goroutine, so the order is fixed), then the park unwinds. The operation
// has happened, so it must win the tie: the Recv returns the value, the
// Send returns nil, and Timeout returns nil. Before, the unwinding Recv
// gave the value back, which on an unbuffered channel with nobody else
// waiting lost it though its sender had returned nil, and the unwinding
// Send reported ErrTimeout for a value its receiver had taken. Only
// parallelism opens this window in production; the hook opens it on both
// runtimes.
func TestChanTimeoutTieAfterRepark(t *testing.T) {
	for _, capacity := range []int{0, 1} {
		for _, send := range []bool{false, true} {
			for _, inSelect := range []bool{false, true} {
				if send && capacity > 0 {
					continue // a buffered Send that parks waits for room, not for a partner
				}
				for _, rt := range tieRuntimes {
					name := fmt.Sprintf("%s, capacity %d, send %v, in a Select %v", rt.name, capacity, send, inSelect)
					// In production the deadline may run out before the first
					// park (a slow start): then try again.
					for attempt := 1; attempt <= 5; attempt++ {
						var c *simrt.Chan[int]
						parks, partner := 0, false
						var took int
						again := false
						restore := simrt.SetBeforePark(func() {
							if parks++; parks != 2 { // the second park follows the deadline's wake-up
								return
							}
							if send {
								took, partner = c.TryRecv()
							} else {
								partner = c.TrySend(7)
							}
						})
						rt.start(func(ctx simrt.Context) {
							c = simrt.NewChan[int](capacity)
							var v int
							var ok bool
							var serr error
							err := simrt.Timeout(ctx, time.Millisecond, func() error {
								switch {
								case inSelect && send:
									simrt.Select(ctx, c.OnSend(7, func(err error) { serr = err }), simrt.After(ctx, time.Hour, nil))
								case inSelect:
									simrt.Select(ctx, c.OnRecv(func(x int, got bool) { v, ok = x, got }), simrt.After(ctx, time.Hour, nil))
								case send:
									serr = c.Send(ctx, 7)
								default:
									v, ok = c.Recv(ctx)
								}
								return nil
							})
							switch {
							case parks < 2 && attempt < 5 && rt.name == "realtime":
								again = true
							case parks < 2 || !partner:
								t.Errorf("%s: the partner did not meet the re-parked waiter (%d parks)", name, parks)
							case errors.Is(err, simrt.ErrTimeout):
								t.Errorf("%s: Timeout = %v though the partner completed the operation (send: TryRecv took %d)", name, err, took)
							case err != nil || serr != nil:
								t.Errorf("%s: Timeout = %v, Send = %v", name, err, serr)
							case send && took != 7:
								t.Errorf("%s: TryRecv took %d, want 7", name, took)
							case !send && (v != 7 || !ok):
								t.Errorf("%s: Recv = %d, %v; want 7, true", name, v, ok)
							}
						})
						restore()
						if !again {
							break
						}
					}
				}
			}
		}
	}
}
