package runtimetest

import (
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

var handoffCases = []testCase{
	{"ChanHandsValueToParkedReceiver", "a sender hands its value to a receiver parked on a channel (buffered or not) directly: nobody else can take it from the buffer before the receiver runs", chanHandsValueToParkedReceiver},
	{"ChanReceiversFIFO", "receivers parked on a channel get the values in the order they parked, buffered or not", chanReceiversFIFO},
	{"ChanHandoffNotLostOnAbort", "a value handed to a receiver (a plain Recv or a Select case) of a buffered channel that is aborted at the same moment is not lost: when the receiver unwinds, the next parked receiver gets it, or it goes back to the head of the channel", chanHandoffNotLostOnAbort},
	{"ChanHandoffTimeoutTie", "a receiver whose Timeout runs out at the moment a value is handed to it either takes the value (the timed function wins a tie) or leaves it in the channel", chanHandoffTimeoutTie},
	{"ChanCloseWakesParkedReceivers", "closing a channel, buffered or not, ends every parked Recv and Select receive case with ok=false", chanCloseWakesParkedReceivers},
	{"SelectHandoffOrNotified", "a parked Select is completed by the first of its cases: a sender's hand-off wins over a case that becomes ready after it, and a case that woke the Select first makes later senders pass it by (their values stay in the channel)", selectHandoffOrNotified},
}

// capacities are the channels the hand-off cases run on: unbuffered and
// capacity 1.
var capacities = []int{0, 1}

// parked sleeps long enough for tasks spawned just before to park (in a
// simulator: certainly; in production: almost certainly, which the cases
// that run there allow for).
func parked(ctx simrt.Context) { ctx.Sleep(5 * time.Millisecond) }

func chanHandsValueToParkedReceiver(t T, r Runner) {
	for _, capacity := range capacities {
		r.run(t, Options{}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](capacity)
			recv := simrt.Spawn(ctx, func(ctx simrt.Context) int { v, _ := ch.Recv(ctx); return v })
			sel := simrt.Spawn(ctx, func(ctx simrt.Context) int {
				var v int
				simrt.Select(ctx, ch.OnRecv(func(x int, _ bool) { v = x }), simrt.After(ctx, time.Hour, nil))
				return v
			})
			parked(ctx)
			ch.Send(ctx, 1)
			ch.Send(ctx, 2)
			stolen, ok := ch.TryRecv()
			if ok && r.Simulated {
				t.Errorf("capacity %d: TryRecv took %d, handed to a parked receiver", capacity, stolen)
			}
			a, _ := recv.Await(ctx)
			b, _ := sel.Await(ctx)
			if !ok && (a+b != 3 || a == b) {
				t.Errorf("capacity %d: receivers got %d and %d, want 1 and 2", capacity, a, b)
			}
		})
	}
}

func chanReceiversFIFO(t T, r Runner) {
	for _, capacity := range capacities {
		r.run(t, Options{}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](capacity)
			var hs []*simrt.Handle[int]
			for i := range 4 {
				hs = append(hs, simrt.Spawn(ctx, func(ctx simrt.Context) int {
					if i%2 == 0 {
						v, _ := ch.Recv(ctx)
						return v
					}
					var v int
					simrt.Select(ctx, ch.OnRecv(func(x int, _ bool) { v = x }), simrt.After(ctx, time.Hour, nil))
					return v
				}))
				parked(ctx)
			}
			for i := range 4 {
				ch.Send(ctx, i)
			}
			seen := 0
			for i, h := range hs {
				v, _ := h.Await(ctx)
				if r.Simulated && v != i { // in production the receivers may have parked out of order
					t.Errorf("capacity %d: receiver %d got %d, want %d", capacity, i, v, i)
				}
				seen |= 1 << v
			}
			if seen != 0b1111 {
				t.Errorf("capacity %d: values received %04b, want each of 0..3 once", capacity, seen)
			}
		})
	}
}

func chanHandoffNotLostOnAbort(t T, r Runner) {
	for _, capacity := range []int{1, 4} {
		for _, inSelect := range []bool{false, true} {
			r.run(t, Options{}, func(ctx simrt.Context) {
				ch := simrt.NewChan[int](capacity)
				var got atomic.Int64 // what the first receiver took, 0 for nothing
				// An aborted handle completes at once; the task unwinds when
				// it next runs, and gives the value back then.
				unwound := simrt.NewSignal()
				first := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
					defer unwound.Fire(0)
					var v int
					if inSelect {
						simrt.Select(ctx, ch.OnRecv(func(x int, _ bool) { v = x }), simrt.After(ctx, time.Hour, nil))
					} else {
						v, _ = ch.Recv(ctx)
					}
					got.Store(int64(v))
					return struct{}{}
				})
				parked(ctx)
				ch.Send(ctx, 7)
				first.Abort() // at the moment of the hand-off: the receiver has not run
				unwound.Wait(ctx)
				var rest []int
				for v, ok := ch.TryRecv(); ok; v, ok = ch.TryRecv() {
					rest = append(rest, v)
				}
				switch g := got.Load(); {
				case g == 7 && len(rest) == 0:
					if r.Simulated {
						t.Errorf("capacity %d, select %v: the aborted receiver ran on past its park", capacity, inSelect)
					}
				case g == 0 && len(rest) == 1 && rest[0] == 7:
				default:
					t.Errorf("capacity %d, select %v: aborted receiver took %d, channel left %v; want 7 back in the channel", capacity, inSelect, g, rest)
				}

				// With a second receiver parked, the value goes to it.
				unwound = simrt.NewSignal()
				first = simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
					defer unwound.Fire(0)
					v, _ := ch.Recv(ctx)
					got.Store(int64(v))
					return struct{}{}
				})
				parked(ctx)
				second := simrt.Spawn(ctx, func(ctx simrt.Context) int { v, _ := ch.Recv(ctx); return v })
				parked(ctx)
				got.Store(0)
				ch.Send(ctx, 9)
				first.Abort()
				unwound.Wait(ctx)
				ch.Close() // ends the second receiver's Recv if the first one took 9 (production only)
				if v, _ := second.Await(ctx); v != 9 && got.Load() != 9 {
					t.Errorf("capacity %d: second receiver got %d, aborted one %d; want 9 in one of them", capacity, v, got.Load())
				}
			})
		}
	}
}

func chanHandoffTimeoutTie(t T, r Runner) {
	for _, capacity := range capacities[1:] {
		r.run(t, Options{}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](capacity)
			h := simrt.Spawn(ctx, func(ctx simrt.Context) [2]int {
				var v int
				err := simrt.Timeout(ctx, 5*time.Millisecond, func() error {
					v, _ = ch.Recv(ctx)
					return nil
				})
				if err != nil {
					return [2]int{-1, v}
				}
				return [2]int{0, v}
			})
			ctx.Sleep(5 * time.Millisecond) // the receiver's deadline, in a simulator the same instant
			ch.Send(ctx, 3)
			res, _ := h.Await(ctx)
			left, ok := ch.TryRecv()
			switch {
			case res == [2]int{0, 3} && !ok:
			case res[0] == -1 && ok && left == 3:
			default:
				t.Errorf("Timeout result %v, channel left %d (%v); want the value taken or left in the channel", res, left, ok)
			}
		})
	}
}

func chanCloseWakesParkedReceivers(t T, r Runner) {
	for _, capacity := range capacities {
		r.run(t, Options{}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](capacity)
			plain := simrt.Spawn(ctx, func(ctx simrt.Context) bool { _, ok := ch.Recv(ctx); return ok })
			sel := simrt.Spawn(ctx, func(ctx simrt.Context) bool {
				ok := true
				simrt.Select(ctx, ch.OnRecv(func(_ int, o bool) { ok = o }), simrt.After(ctx, time.Hour, nil))
				return ok
			})
			parked(ctx)
			ch.Close()
			if ok, _ := plain.Await(ctx); ok {
				t.Errorf("capacity %d: Recv parked at Close reported ok=true", capacity)
			}
			if ok, _ := sel.Await(ctx); ok {
				t.Errorf("capacity %d: Select receive parked at Close reported ok=true", capacity)
			}
		})
	}
}

func selectHandoffOrNotified(t T, r Runner) {
	if !r.Simulated {
		return // the order of two events at one moment needs a simulator
	}
	for seed := range uint64(20) {
		r.run(t, Options{Seed: seed}, func(ctx simrt.Context) {
			ch := simrt.NewChan[int](1)
			sig := simrt.NewSignal()
			h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
				return simrt.Select(ctx, ch.OnRecv(nil), sig.OnFire(nil))
			})
			parked(ctx)
			ch.Send(ctx, 1) // hands the value over: the Select is done
			sig.Fire(0)
			if i, _ := h.Await(ctx); i != 0 {
				t.Errorf("seed %d: Select handed a value then signalled = case %d, want the receive (0)", seed, i)
			}
			if v, ok := ch.TryRecv(); ok {
				t.Errorf("seed %d: the channel still holds %d after the hand-off", seed, v)
			}

			sig2 := simrt.NewSignal()
			h = simrt.Spawn(ctx, func(ctx simrt.Context) int {
				return simrt.SelectBiased(ctx, sig2.OnFire(nil), ch.OnRecv(nil))
			})
			parked(ctx)
			sig2.Fire(0) // wakes the Select first: the sender passes it by
			ch.Send(ctx, 2)
			if i, _ := h.Await(ctx); i != 0 {
				t.Errorf("seed %d: Select signalled then sent to = case %d, want the signal (0)", seed, i)
			}
			if v, ok := ch.TryRecv(); !ok || v != 2 {
				t.Errorf("seed %d: TryRecv = %d, %v; want 2 left in the channel", seed, v, ok)
			}
		})
	}
}
