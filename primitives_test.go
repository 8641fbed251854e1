package simrt_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage"
)

func run(t *testing.T, seed uint64, f func(ctx *deterministic.Context)) {
	t.Helper()
	deterministic.New(deterministic.Config{Seed: seed, Timeout: time.Hour}).Start(f)
}

func TestChanBoundedSendParksWhileFull(t *testing.T) {
	run(t, 1, func(ctx *deterministic.Context) {
		ch := simrt.NewChan[int](2)
		sent := simrt.NewUnboundedChan[int]()
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for i := range 5 {
				ch.Send(ctx, i)
				sent.Send(ctx, i)
			}
			return struct{}{}
		})
		ctx.Sleep(time.Second)
		if n := sent.Len(); n != 2 {
			t.Fatalf("%d sends completed on a full channel of capacity 2", n)
		}
		var got []int
		for range 5 {
			v, _ := ch.Recv(ctx)
			got = append(got, v)
		}
		if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("received %v", got)
		}
	})
}

func TestChanCloseDrainsThenReportsClosed(t *testing.T) {
	run(t, 1, func(ctx *deterministic.Context) {
		ch := simrt.NewUnboundedChan[string]()
		ch.Send(ctx, "a")
		ch.Close()
		ch.Close() // twice is fine
		if err := ch.Send(ctx, "b"); !errors.Is(err, simrt.ErrClosed) {
			t.Fatalf("send after close: %v", err)
		}
		if v, ok := ch.Recv(ctx); v != "a" || !ok {
			t.Fatalf("recv = %q, %v", v, ok)
		}
		if _, ok := ch.Recv(ctx); ok {
			t.Fatal("recv after drain reported ok")
		}
		if ch.TrySend("c") {
			t.Fatal("TrySend on a closed channel succeeded")
		}
	})
}

func TestChanCloseWakesParkedSenderAndReceiver(t *testing.T) {
	run(t, 2, func(ctx *deterministic.Context) {
		full := simrt.NewChan[int](1)
		full.Send(ctx, 0)
		empty := simrt.NewChan[int](1)
		hs := simrt.Spawn(ctx, func(ctx simrt.Context) error { return full.Send(ctx, 1) })
		hr := simrt.Spawn(ctx, func(ctx simrt.Context) bool { _, ok := empty.Recv(ctx); return ok })
		ctx.Sleep(time.Millisecond)
		full.Close()
		empty.Close()
		if err, _ := hs.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("parked send: %v", err)
		}
		if ok, _ := hr.Await(ctx); ok {
			t.Error("parked recv reported ok")
		}
	})
}

func TestNewChanRejectsNegativeCapacity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewChan(-1) did not panic")
		}
	}()
	simrt.NewChan[int](-1)
}

// A receiver woken for a value that then takes another Select case must pass
// the wake-up on, or the value would sit in the channel while another
// receiver sleeps.
func TestSelectForwardsUnusedNotification(t *testing.T) {
	for seed := range uint64(50) {
		run(t, seed, func(ctx *deterministic.Context) {
			ch := simrt.NewChan[int](1)
			other := simrt.NewSignal()
			got := simrt.NewUnboundedChan[string]()
			simrt.Spawn(ctx.Child("selector"), func(ctx simrt.Context) struct{} {
				// Biased: the selector must take the signal whichever queue
				// woke it (a random Select may take the value, and plain
				// then waits forever, as in Go).
				simrt.SelectBiased(ctx, other.OnFire(func(int) { got.Send(ctx, "signal") }), ch.OnRecv(func(int, bool) { got.Send(ctx, "selector") }))
				return struct{}{}
			})
			simrt.Spawn(ctx.Child("plain"), func(ctx simrt.Context) struct{} {
				ch.Recv(ctx)
				got.Send(ctx, "plain")
				return struct{}{}
			})
			ctx.Sleep(time.Millisecond)
			other.Fire(1)
			ch.Send(ctx, 7)
			var names []string
			for range 2 {
				n, _ := got.Recv(ctx)
				names = append(names, n)
			}
			slices.Sort(names)
			// The selector finds the signal fired (its first case) whichever
			// queue woke it, so the value must reach the plain receiver.
			if !slices.Equal(names, []string{"plain", "signal"}) {
				t.Fatalf("seed %d: %v", seed, names)
			}
		})
	}
}

func TestSelectBiasedToFirstReadyCase(t *testing.T) {
	run(t, 3, func(ctx *deterministic.Context) {
		a, b := simrt.NewChan[int](1), simrt.NewChan[int](1)
		a.Send(ctx, 1)
		b.Send(ctx, 2)
		if i := simrt.Select(ctx, b.OnRecv(nil), a.OnRecv(nil)); i != 0 {
			t.Fatalf("chose case %d", i)
		}
		if a.Len() != 1 {
			t.Fatal("the case not chosen consumed its value")
		}
	})
}

func TestSelectLoopLosesNoMessages(t *testing.T) {
	run(t, 4, func(ctx *deterministic.Context) {
		ch := simrt.NewChan[int](4)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for i := range 100 {
				ch.Send(ctx, i)
			}
			ch.Close()
			return struct{}{}
		})
		var got []int
		ticks := 0
		for open := true; open; {
			simrt.Select(ctx,
				simrt.After(ctx, 0, func() { ticks++ }),
				ch.OnRecv(func(v int, ok bool) {
					if ok {
						got = append(got, v)
					}
					open = ok
				}),
			)
			simrt.Select(ctx, ch.OnRecv(func(v int, ok bool) {
				if ok {
					got = append(got, v)
				}
				open = open && ok
			}), simrt.After(ctx, time.Millisecond, nil))
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("message %d is %d: %v", i, v, got)
			}
		}
		if len(got) != 100 {
			t.Fatalf("got %d of 100 messages", len(got))
		}
	})
}

func TestMutexExcludesAndHandsOver(t *testing.T) {
	run(t, 5, func(ctx *deterministic.Context) {
		var mu simrt.Mutex
		inside, maxInside, total := 0, 0, 0
		var hs []*simrt.Handle[struct{}]
		for range 10 {
			hs = append(hs, simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				for range 10 {
					mu.Lock(ctx)
					inside++
					maxInside = max(maxInside, inside)
					ctx.Sleep(time.Millisecond)
					total++
					inside--
					mu.Unlock()
				}
				return struct{}{}
			}))
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		if maxInside != 1 || total != 100 {
			t.Fatalf("max inside %d, total %d", maxInside, total)
		}
		if !mu.TryLock() || mu.TryLock() {
			t.Fatal("TryLock on a free mutex, then a held one")
		}
		mu.Unlock()
	})
}

func TestMutexAbortedWaiterPassesTheLockOn(t *testing.T) {
	// NoYield: the victim must be aborted right after the Unlock that woke
	// it; a yield at that Unlock lets it take the lock and end holding it.
	deterministic.New(deterministic.Config{Seed: 6, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}).Start(func(ctx *deterministic.Context) {
		var mu simrt.Mutex
		mu.Lock(ctx)
		victim := simrt.Spawn(ctx.Child("victim"), func(ctx simrt.Context) struct{} { mu.Lock(ctx); return struct{}{} })
		next := simrt.Spawn(ctx.Child("next"), func(ctx simrt.Context) int { mu.Lock(ctx); mu.Unlock(); return 1 })
		ctx.Sleep(time.Millisecond)
		mu.Unlock()
		victim.Abort()
		if v, err := next.Await(ctx); v != 1 || err != nil {
			t.Fatalf("next waiter: %v, %v", v, err)
		}
	})
}

func TestOneshot(t *testing.T) {
	run(t, 7, func(ctx *deterministic.Context) {
		o := simrt.NewOneshot[int]()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int { v, _ := o.Recv(ctx); return v })
		if !o.Send(5) || o.Send(6) {
			t.Fatal("a oneshot takes exactly one value")
		}
		if v, _ := h.Await(ctx); v != 5 {
			t.Fatalf("received %d", v)
		}
		closed := simrt.NewOneshot[int]()
		closed.Close()
		if _, err := closed.Recv(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Fatalf("closed oneshot: %v", err)
		}
	})
}

func TestTimeoutNested(t *testing.T) {
	run(t, 8, func(ctx *deterministic.Context) {
		var inner error
		outer := simrt.Timeout(ctx, time.Second, func() error {
			inner = simrt.Timeout(ctx, time.Hour, func() error {
				ctx.Sleep(2 * time.Second)
				return nil
			})
			return nil
		})
		if !errors.Is(outer, simrt.ErrTimeout) || inner != nil {
			t.Fatalf("outer %v, inner %v: the outer deadline must unwind through the inner Timeout", outer, inner)
		}
		// After a Timeout the task can block again.
		ctx.Sleep(time.Millisecond)
		err := simrt.Timeout(ctx, time.Second, func() error { return errors.New("own") })
		if err == nil || err.Error() != "own" {
			t.Fatalf("f's own error: %v", err)
		}
	})
}

func TestTimeoutFutureWinsTie(t *testing.T) {
	run(t, 9, func(ctx *deterministic.Context) {
		err := simrt.Timeout(ctx, 100*time.Millisecond, func() error {
			ctx.Sleep(50 * time.Millisecond)
			return nil
		})
		if err != nil {
			t.Fatalf("sleep(50ms) under timeout(100ms): %v", err)
		}
	})
}

func TestAbortUnwindsAndRunsDefers(t *testing.T) {
	run(t, 10, func(ctx *deterministic.Context) {
		deferred := false
		blockedAgain := false
		started := simrt.NewSignal()
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			defer func() {
				deferred = true
				defer func() { blockedAgain = recover() != nil }()
				ctx.Sleep(time.Second) // a task being unwound cannot block
			}()
			started.Fire(1)
			simrt.NewSignal().Wait(ctx)
			return 1
		})
		started.Wait(ctx) // a task aborted before it starts runs nothing
		ctx.Sleep(time.Millisecond)
		h.Abort()
		h.Abort() // twice is fine
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Fatalf("await aborted: %v", err)
		}
		ctx.Sleep(10 * time.Millisecond) // the executor resumes the task to unwind it
		if !deferred || !blockedAgain {
			t.Fatalf("deferred %v, blocked again panicked %v", deferred, blockedAgain)
		}
	})
}

func TestCompletionHandle(t *testing.T) {
	run(t, 11, func(ctx *deterministic.Context) {
		h, complete := storage.NewCompletion[int]()
		h.Abort()
		complete(3, nil)
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrAborted) {
			t.Fatalf("aborted completion: %v", err)
		}
		if v, err := storage.Ready(4, nil).Await(ctx); v != 4 || err != nil {
			t.Fatalf("ready: %v %v", v, err)
		}
	})
}

func TestSelectHandles(t *testing.T) {
	run(t, 12, func(ctx *deterministic.Context) {
		slow := simrt.Spawn(ctx, func(ctx simrt.Context) int { ctx.Sleep(time.Hour); return 1 })
		fast := simrt.Spawn(ctx, func(ctx simrt.Context) int { ctx.Sleep(time.Second); return 2 })
		i, v, err := simrt.SelectHandles(ctx, slow, fast)
		if i != 1 || v != 2 || err != nil {
			t.Fatalf("select: %d %d %v", i, v, err)
		}
		if _, err := slow.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Fatalf("the loser was not aborted: %v", err)
		}
		if i, _, err := simrt.SelectHandles[int](ctx); i != -1 || !errors.Is(err, simrt.ErrClosed) {
			t.Fatalf("empty select: %d %v", i, err)
		}
	})
}

// serialStrategy runs every piece of work in order on the caller, planning
// for parallelism p.
type serialStrategy struct{ p int }

func (s serialStrategy) Parallelism() int { return s.p }

func (s serialStrategy) ForEach(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}

func TestStrategyFoldMatchesSerial(t *testing.T) {
	in := make([]int, 1000)
	for i := range in {
		in[i] = i
	}
	for p := 1; p <= 7; p++ {
		got := simrt.Fold(serialStrategy{p}, in, func() int { return 0 }, func(a, v int) int { return a + v }, func(a, b int) int { return a + b })
		if got != 499500 {
			t.Fatalf("parallelism %d: %d", p, got)
		}
	}
}

// When the timed function becomes ready at the very instant the deadline
// expires, the function wins.
func TestTimeoutTieGoesToTheFunction(t *testing.T) {
	run(t, 13, func(ctx *deterministic.Context) {
		err := simrt.Timeout(ctx, 10*time.Millisecond, func() error {
			ctx.Sleep(10 * time.Millisecond)
			return nil
		})
		if err != nil {
			t.Fatalf("tie: %v", err)
		}
	})
}
