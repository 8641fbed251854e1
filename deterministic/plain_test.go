package deterministic

import (
	"errors"
	"fmt"
	"github.com/simrt/simrt/internal/plainsim"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/simrt/simrt"
)

// plainRun runs f as the root of a seeded run in plain-Go time mode.
func plainRun(seed uint64, f func(ctx *Context, p plainSim)) {
	New(Config{Seed: seed, AdvanceWhenBlocked: true}).Start(func(ctx *Context) { f(ctx, plainOf(ctx)) })
}

// spawnN spawns n tasks running f(i) and awaits them all.
func spawnN(ctx *Context, n int, f func(i int)) {
	hs := make([]*simrt.Handle[struct{}], n)
	for i := range hs {
		hs[i] = simrt.Spawn(ctx, func(simrt.Context) struct{} { f(i); return struct{}{} })
	}
	for _, h := range hs {
		if _, err := h.Await(ctx); err != nil {
			panic(err)
		}
	}
}

// TestPlainSemaphoreFIFO: tasks that find the semaphore at zero park, and
// each release grants the count to the longest waiter, so they are served
// in the order they came; a count released with nobody waiting is taken
// without parking.
func TestPlainSemaphoreFIFO(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		var sema uint32
		var got []int
		hs := make([]*simrt.Handle[struct{}], 4)
		for i := range hs {
			hs[i] = simrt.Spawn(ctx, func(simrt.Context) struct{} {
				p.Semacquire(&sema, plainsim.SemaPlain, false, nil)
				got = append(got, i)
				return struct{}{}
			})
			ctx.Sleep(time.Millisecond) // queue them in spawn order
		}
		if len(got) != 0 {
			t.Fatalf("acquired %v at zero", got)
		}
		for range hs {
			p.Semrelease(&sema, false)
			ctx.Sleep(time.Millisecond) // let the one granted run
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		if fmt.Sprint(got) != "[0 1 2 3]" || sema != 0 {
			t.Errorf("served %v, count %d; want [0 1 2 3] and 0", got, sema)
		}
		p.Semrelease(&sema, false)
		p.Semacquire(&sema, plainsim.SemaPlain, false, nil) // would stall if it parked
		if len(ctx.rt.plain.semas) != 0 {
			t.Errorf("%d semaphores kept with nobody waiting", len(ctx.rt.plain.semas))
		}
	})
}

// TestPlainSemaphoreLIFO: a lifo acquire queues ahead of the waiters
// already there (a Mutex waiter that waited before).
func TestPlainSemaphoreLIFO(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		var sema uint32
		var got []int
		hs := make([]*simrt.Handle[struct{}], 3)
		for i := range hs {
			hs[i] = simrt.Spawn(ctx, func(simrt.Context) struct{} {
				p.Semacquire(&sema, plainsim.SemaMutex, i == 2, nil)
				got = append(got, i)
				return struct{}{}
			})
			ctx.Sleep(time.Millisecond)
		}
		for range hs {
			p.Semrelease(&sema, true)
			ctx.Sleep(time.Millisecond)
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		if fmt.Sprint(got) != "[2 0 1]" {
			t.Errorf("served %v, want [2 0 1]", got)
		}
	})
}

// TestPlainSemaphoreAbortWithdraws: a task aborted while it waits leaves
// the queue, so the next release goes to a live waiter instead of being
// lost with the dead one (the run would stall).
func TestPlainSemaphoreAbortWithdraws(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		var sema uint32
		dead := simrt.Spawn(ctx, func(simrt.Context) struct{} { p.Semacquire(&sema, plainsim.SemaPlain, false, nil); return struct{}{} })
		ctx.Sleep(time.Millisecond)
		live := simrt.Spawn(ctx, func(simrt.Context) struct{} { p.Semacquire(&sema, plainsim.SemaPlain, false, nil); return struct{}{} })
		ctx.Sleep(time.Millisecond)
		dead.Abort()
		ctx.Sleep(time.Millisecond)
		p.Semrelease(&sema, false)
		if _, err := live.Await(ctx); err != nil {
			t.Errorf("live waiter: %v", err)
		}
		if _, err := dead.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("aborted waiter: %v, want ErrClosed", err)
		}
	})
}

// TestPlainStallReportNamesSync: a run stuck on plain sync primitives ends
// with the stall verdict naming what each task waits on: the Mutex, the
// WaitGroup with its counter (read through the hook the sync overlay
// supplies), the Cond.
func TestPlainStallReportNamesSync(t *testing.T) {
	var v *Verdict
	func() {
		defer func() { v, _ = recover().(*Verdict) }()
		plainRun(1, func(ctx *Context, p plainSim) {
			var mu, wg uint32
			var cond [4]uint64
			p.SetWaitGroupCount(func(sema *uint32) int {
				if sema != &wg {
					t.Errorf("WaitGroup counter asked for another address")
				}
				return 2
			})
			p.MutexLocked(&mu) // the root holds it
			simrt.Spawn(ctx.Child("locker"), func(simrt.Context) struct{} { p.Semacquire(&mu, plainsim.SemaMutex, false, &mu); return struct{}{} })
			var gone uint32 // locked by a task that ended without unlocking it
			ender := simrt.Spawn(ctx.Child("ender"), func(simrt.Context) struct{} { p.MutexLocked(&gone); return struct{}{} })
			ender.Await(ctx)
			simrt.Spawn(ctx.Child("orphan"), func(simrt.Context) struct{} { p.Semacquire(&gone, plainsim.SemaMutex, false, &gone); return struct{}{} })
			var free uint32 // unlocked: no holder to name
			p.MutexLocked(&free)
			p.MutexUnlocked(&free)
			simrt.Spawn(ctx.Child("nameless"), func(simrt.Context) struct{} { p.Semacquire(&free, plainsim.SemaMutex, false, &free); return struct{}{} })
			simrt.Spawn(ctx.Child("condwaiter"), func(simrt.Context) struct{} {
				p.NotifyListWait(unsafe.Pointer(&cond), p.NotifyListAdd(unsafe.Pointer(&cond)))
				return struct{}{}
			})
			p.Semacquire(&wg, plainsim.SemaWaitGroup, false, nil)
		})
	}()
	if v == nil || !errors.Is(v, ErrStalled) {
		t.Fatalf("verdict %v, want a stall", v)
	}
	text := v.Error()
	for _, want := range []string{`"locker" (#1) parked 0s, since 1970-01-01T00:00:00Z: sync.Mutex.Lock (held by task <root>)`,
		`"condwaiter" (#5) parked 0s, since 1970-01-01T00:00:00Z: sync.Cond.Wait`,
		`sync.WaitGroup.Wait (counter 2)`,
		`"orphan" (#3) parked 0s, since 1970-01-01T00:00:00Z: sync.Mutex.Lock (held by task "ender", which has ended)`,
		`"nameless" (#4) parked 0s, since 1970-01-01T00:00:00Z: sync.Mutex.Lock` + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

// TestPlainNotifyList: sync.Cond's tickets. A notification given before
// its waiter arrives is not lost, NotifyOne wakes the oldest ticket first,
// NotifyAll wakes every ticket handed out and none handed out later.
func TestPlainNotifyList(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		var c [4]uint64
		l := unsafe.Pointer(&c)
		early := p.NotifyListAdd(l)
		p.NotifyListNotifyOne(l)
		p.NotifyListWait(l, early) // would stall if the notification were lost

		var woke []int
		hs := make([]*simrt.Handle[struct{}], 3)
		for i := range hs {
			hs[i] = simrt.Spawn(ctx, func(simrt.Context) struct{} {
				p.NotifyListWait(l, p.NotifyListAdd(l))
				woke = append(woke, i)
				return struct{}{}
			})
			ctx.Sleep(time.Millisecond)
		}
		p.NotifyListNotifyOne(l)
		ctx.Sleep(time.Millisecond)
		if fmt.Sprint(woke) != "[0]" {
			t.Fatalf("NotifyOne woke %v, want [0]", woke)
		}
		p.NotifyListNotifyAll(l)
		hs[1].Await(ctx)
		hs[2].Await(ctx)
		if len(woke) != 3 {
			t.Fatalf("NotifyAll woke %v", woke)
		}
		late := p.NotifyListAdd(l)
		h := simrt.Spawn(ctx, func(simrt.Context) struct{} { p.NotifyListWait(l, late); return struct{}{} })
		ctx.Sleep(time.Millisecond)
		if h.Done() {
			t.Fatal("a ticket taken after NotifyAll was woken by it")
		}
		p.NotifyListNotifyAll(l)
		h.Await(ctx)
	})
}

// TestPlainClock: time.now and runtimeNano read simulated time, with a
// positive monotonic reading even at the epoch, and Sleep lasts exactly
// its duration.
func TestPlainClock(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		sec, nsec, mono := p.Now()
		if !time.Unix(sec, int64(nsec)).Equal(ctx.Now()) || mono != p.Nano() || mono <= 0 {
			t.Errorf("Now() = %d, %d, %d at %v; Nano %d", sec, nsec, mono, ctx.Now(), p.Nano())
		}
		p.Sleep(100 * time.Millisecond)
		if d := p.Nano() - mono; d != int64(100*time.Millisecond) {
			t.Errorf("Sleep(100ms) took %v", time.Duration(d))
		}
		p.Sleep(-1) // returns at once
		if d := p.Nano() - mono; d != int64(100*time.Millisecond) {
			t.Errorf("Sleep(-1) moved the clock to %v", time.Duration(d))
		}
	})
}

// timerKey makes a distinct key, as the address of a time.Timer is.
func timerKey() unsafe.Pointer { return unsafe.Pointer(new([2]uintptr)) }

// TestPlainTimers: a function timer fires once at its due time in a task
// of its own, with its lateness; a periodic one fires every period until
// stopped; Stop before the due time prevents the firing and reports true,
// after it false; Reset re-arms.
func TestPlainTimers(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		start := p.Nano()
		var fired []string
		rec := func(name string) func(any, uintptr, int64) {
			return func(arg any, _ uintptr, delta int64) {
				if ctx.rt.current == nil {
					t.Errorf("timer %s ran outside a task", name)
				}
				fired = append(fired, fmt.Sprintf("%s@%v+%d", name, time.Duration(p.Nano()-start), delta))
			}
		}
		once, tick, stopped := timerKey(), timerKey(), timerKey()
		p.NewTimer(once, start+int64(30*time.Millisecond), 0, rec("once"), nil, false)
		p.NewTimer(tick, start+int64(20*time.Millisecond), int64(20*time.Millisecond), rec("tick"), nil, false)
		p.NewTimer(stopped, start+int64(10*time.Millisecond), 0, rec("stopped"), nil, false)
		if pending, ok := p.StopTimer(stopped); !pending || !ok {
			t.Errorf("Stop of a pending timer: %v, %v", pending, ok)
		}
		p.Sleep(70 * time.Millisecond)
		if pending, _ := p.StopTimer(tick); !pending {
			t.Error("Stop of a running ticker reported false")
		}
		if pending, _ := p.StopTimer(once); pending {
			t.Error("Stop of a fired timer reported true")
		}
		if pending, ok := p.ResetTimer(once, p.Nano()+int64(5*time.Millisecond), 0); pending || !ok {
			t.Errorf("Reset of a fired timer: %v, %v", pending, ok)
		}
		p.Sleep(100 * time.Millisecond)
		want := "[tick@20ms+0 once@30ms+0 tick@40ms+0 tick@60ms+0 once@75ms+0]"
		if got := fmt.Sprint(fired); got != want {
			t.Errorf("fired %s, want %s", got, want)
		}
		if _, ok := p.StopTimer(timerKey()); ok {
			t.Error("Stop of a timer made elsewhere claimed it")
		}
	})
}

// TestPlainTimerChannelDrained: stopping or resetting a channel timer
// drains its channel, so no value from before is received after, and a
// value nobody received counts as pending (Go 1.23 timer channels).
func TestPlainTimerChannelDrained(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		c := make(chan time.Time, 1)
		send := func(arg any, _ uintptr, _ int64) { arg.(chan time.Time) <- time.Unix(0, 0) }
		k := timerKey()
		p.NewTimer(k, p.Nano()+int64(time.Millisecond), 0, send, c, true)
		p.Sleep(2 * time.Millisecond)
		if len(c) != 1 {
			t.Fatalf("timer channel holds %d values after it fired", len(c))
		}
		if pending, _ := p.StopTimer(k); !pending || len(c) != 0 {
			t.Errorf("Stop of an expired, unreceived channel timer: %v with %d values left", pending, len(c))
		}
	})
}

// TestPlainTimerTiesFromStream: timers due at one instant run in an order
// drawn from the stream: the same on every run of a seed, different
// across seeds.
func TestPlainTimerTiesFromStream(t *testing.T) {
	order := func(seed uint64) string {
		var got []int
		plainRun(seed, func(ctx *Context, p plainSim) {
			at := p.Nano() + int64(time.Second)
			for i := range 6 {
				p.NewTimer(timerKey(), at, 0, func(any, uintptr, int64) { got = append(got, i) }, nil, false)
			}
			p.Sleep(2 * time.Second)
		})
		return fmt.Sprint(got)
	}
	seen := map[string]bool{}
	for seed := range uint64(10) {
		a := order(seed)
		if b := order(seed); a != b {
			t.Fatalf("seed %d: %s then %s", seed, a, b)
		}
		seen[a] = true
	}
	if len(seen) < 2 {
		t.Errorf("10 seeds, one order: %v", seen)
	}
}

// TestPlainRandFromStream: plain Go's random numbers come from the run's
// stream: one seed draws the same numbers every run, two seeds differ, and
// each draw is audited.
func TestPlainRandFromStream(t *testing.T) {
	draw := func(seed uint64) (string, string) {
		var out string
		var state string
		New(Config{Seed: seed}).Start(func(ctx *Context) {
			p := plainOf(ctx)
			b := make([]byte, 12)
			p.Read(b)
			out = fmt.Sprint(p.Uint64(), b)
			state = ctx.Auditor().State()
		})
		return out, state
	}
	a, sa := draw(1)
	b, sb := draw(1)
	c, _ := draw(2)
	if a != b || sa != sb {
		t.Errorf("seed 1 twice: %s / %s, states %s / %s", a, b, sa, sb)
	}
	if a == c {
		t.Errorf("seeds 1 and 2 drew the same: %s", a)
	}
	if sa == "00000000" {
		t.Error("draws left the audit state untouched")
	}
}

// TestPlainSpinOnTryLockYields: a task spinning on TryLock of a lock whose
// holder is ready but not running is made to yield, even with scheduling
// points off (NoYield), so the holder releases the lock within a few
// spinYield tries instead of never (a forced yield puts the spinner behind
// the tasks ready then, which the next iteration may still run after it).
func TestPlainSpinOnTryLockYields(t *testing.T) {
	New(Config{Seed: 1, Scheduling: Scheduling{YieldProbability: NoYield}, AdvanceWhenBlocked: true}).Start(func(ctx *Context) {
		p := plainOf(ctx)
		locked := true
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { locked = false; return struct{}{} }) // the holder
		tries := 0
		for locked && tries < 100*spinYield {
			p.SpinPoint(&locked)
			tries++
		}
		if locked || tries > 2*spinYield {
			t.Errorf("holder ran after %d tries (locked %v), want at most %d", tries, locked, 2*spinYield)
		}
	})
}

// TestPlainTimerNever: a timer due at Go's "never" (time.when saturates a
// huge duration to math.MaxInt64) is not scheduled, so it gives the clock
// no instant to jump to: a run with nothing else to do stalls at once
// instead of jumping to the end of simulated time.
func TestPlainTimerNever(t *testing.T) {
	plainRun(1, func(ctx *Context, p plainSim) {
		p.NewTimer(timerKey(), math.MaxInt64, 0, func(any, uintptr, int64) { t.Error("a timer due never fired") }, nil, false)
		if n := ctx.rt.timers.len(); n != 0 {
			t.Errorf("%d timers scheduled for a timer due never", n)
		}
	})
}
