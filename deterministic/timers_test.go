package deterministic

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestAfterFuncAllocatesBySlab: a function timer costs no allocation of
// its own (timers come out of slabs), and timers from one slab stay
// independent: each fires or stops on its own, in order.
func TestAfterFuncAllocatesBySlab(t *testing.T) {
	Seeded(1).Start(func(ctx *Context) {
		f := func() {}
		if a := testing.AllocsPerRun(timerSlab*8, func() { ctx.AfterFunc(time.Hour, f) }); a > 0.1 {
			t.Errorf("AfterFunc: %.2f allocations per call, want at most 0.1", a)
		}
		var fired []int
		tms := make([]interface{ Stop() bool }, 2*timerSlab)
		for i := range tms {
			tms[i] = ctx.AfterFunc(time.Duration(i+1)*time.Millisecond, func() { fired = append(fired, i) })
		}
		for i := 0; i < len(tms); i += 2 {
			if !tms[i].Stop() {
				t.Fatalf("timer %d: Stop before it fired reported false", i)
			}
		}
		ctx.Sleep(time.Second)
		if len(fired) != timerSlab {
			t.Fatalf("%d timers fired, want %d", len(fired), timerSlab)
		}
		for k, i := range fired {
			if i != 2*k+1 {
				t.Fatalf("fired %v, want the odd timers in order", fired)
			}
			if tms[i].Stop() {
				t.Fatalf("timer %d: Stop after it fired reported true", i)
			}
		}
	})
}

// TestTimersPopInKeyOrder checks the timer heap against a sorted list: with
// seeded random adds and pops, every pop returns the timer with the least
// (at, seq) pending, so timers due at one instant fire in the order they
// were set.
func TestTimersPopInKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h timers
	var model []*timer // pending, sorted by (at, seq)
	for i := range 20_000 {
		if len(model) == 0 || rng.IntN(3) != 0 {
			var f func()
			if rng.IntN(2) == 0 {
				f = func() {}
			}
			tm := h.add(rng.Int64N(50), nil, f)
			j, _ := slices.BinarySearchFunc(model, tm, func(a, b *timer) int {
				if a.at != b.at {
					return int(a.at - b.at)
				}
				return int(a.seq) - int(b.seq)
			})
			model = slices.Insert(model, j, tm)
		} else {
			got := h.pop()
			if got != model[0] {
				t.Fatalf("op %d: pop returned the timer (at %d, seq %d), want (at %d, seq %d)", i, got.at, got.seq, model[0].at, model[0].seq)
			}
			model = model[1:]
		}
		if at, ok := h.peek(); ok != (len(model) > 0) || ok && at != model[0].at {
			t.Fatalf("op %d: peek = %d, %v; want the earliest of %d pending", i, at, ok, len(model))
		}
		if h.len() != len(model) {
			t.Fatalf("op %d: %d timers in the heap, want %d", i, h.len(), len(model))
		}
	}
}
