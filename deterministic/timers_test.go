package deterministic

import (
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
