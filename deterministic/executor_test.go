package deterministic

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

var epoch = time.Unix(0, 0).UTC()

func TestAlarmMinHeap(t *testing.T) {
	var h timers
	for _, at := range []int64{10, 5, 15, 5} {
		h.add(at, nil, nil)
	}
	var got []int64
	for h.len() > 0 {
		got = append(got, h.pop().at)
	}
	if !slices.Equal(got, []int64{5, 5, 10, 15}) {
		t.Fatalf("popped %v", got)
	}
}

// TestTimersFireInOrder checks the heap against a sorted model with many
// random deadlines: ties fire in the order they were set.
func TestTimersFireInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h timers
	type entry struct {
		at  int64
		seq uint64
	}
	var model []entry
	for i := range 100_000 {
		at := rng.Int64N(1000)
		h.add(at, nil, nil)
		model = append(model, entry{at, uint64(i)})
	}
	slices.SortStableFunc(model, func(a, b entry) int { return int(a.at - b.at) })
	for i, want := range model {
		got := h.pop()
		if got.at != want.at || got.seq != want.seq {
			t.Fatalf("pop %d: (%d,%d), want (%d,%d)", i, got.at, got.seq, want.at, want.seq)
		}
	}
}

// An After case in a Select fires exactly at its deadline. (That it owns
// one timer however often Select re-arms it is TestSleepRefreshesOneAlarm
// AfterRepolling in package simrt.)
func TestSelectAfterFiresAtDeadline(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		start := ctx.Now()
		i := simrt.Select(ctx, simrt.After(ctx, 20*time.Millisecond, nil), simrt.NewSignal().OnFire(nil))
		if i != 0 || ctx.Now().Sub(start) != 20*time.Millisecond {
			t.Fatalf("after fired as case %d after %v", i, ctx.Now().Sub(start))
		}
	})
}

func TestDroppedSleeperBeforeLiveDeadline(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		started := simrt.NewOneshot[struct{}]()
		sleeper := simrt.Spawn(ctx.Child("sleeper"), func(ctx simrt.Context) struct{} {
			started.Send(struct{}{})
			ctx.Sleep(time.Second)
			return struct{}{}
		})
		started.Recv(ctx)
		sleeper.Abort()
		// The aborted sleeper's alarm must not keep a later live one from firing.
		start := ctx.Now()
		ctx.Sleep(2 * time.Second)
		if got := ctx.Now().Sub(start); got != 2*time.Second {
			t.Errorf("woke at %v", got)
		}
	})
}

func TestDroppedSleeperBeyondTimeout(t *testing.T) {
	mustVerdict(t, ErrRunTimeout, func() {
		Timed(10 * time.Second).Start(func(ctx *Context) {
			started := simrt.NewOneshot[struct{}]()
			sleeper := simrt.Spawn(ctx.Child("sleeper"), func(ctx simrt.Context) struct{} {
				started.Send(struct{}{})
				ctx.Sleep(20 * time.Second)
				return struct{}{}
			})
			started.Recv(ctx)
			sleeper.Abort()
			simrt.NewSignal().Wait(ctx) // pending forever
		})
	})
}

func TestTimeout(t *testing.T) {
	mustVerdict(t, ErrRunTimeout, func() {
		Timed(10 * time.Second).Start(func(ctx *Context) {
			for {
				ctx.Sleep(time.Second)
			}
		})
	})
}

// In Go a zero Cycle means the default, so the reference's zero-cycle case
// cannot be written; the invalid durations are the negative ones.
func TestBadTimeout(t *testing.T) {
	mustPanic(t, "deterministic.New: Config.Timeout must not be negative", func() { New(Config{Timeout: -time.Second}) })
}

func TestBadCycle(t *testing.T) {
	mustPanic(t, "deterministic.New: Config.Cycle must not be negative", func() {
		New(Config{Cycle: -1})
	})
}

func TestBadStartTime(t *testing.T) {
	mustPanic(t, "deterministic.New: Config.StartTime must not be before the Unix epoch", func() {
		New(Config{StartTime: time.Unix(-1, 0)})
	})
}

func TestStartTimePastEndOfTime(t *testing.T) {
	mustPanic(t, "deterministic.New: Config.StartTime must be before the end of simulated time", func() {
		New(Config{StartTime: time.Unix(0, math.MaxInt64)})
	})
}

// Near the end of simulated time the clock and the run's deadline saturate
// instead of wrapping into 1677: cycles keep the clock at its last instant,
// and a Timeout past the end never fires.
func TestClockSaturatesAtEndOfTime(t *testing.T) {
	start := time.Unix(0, math.MaxInt64-int64(2*time.Millisecond))
	New(Config{StartTime: start, Timeout: time.Hour}).Start(func(ctx *Context) {
		for range 5 {
			simrt.Reschedule(ctx)
			if ctx.Now().Before(start) {
				t.Fatalf("clock went back from %v to %v", start, ctx.Now())
			}
		}
		if end := time.Unix(0, math.MaxInt64); !ctx.Now().Equal(end) {
			t.Errorf("after 5 cycles from 2ms before the end, clock at %v, want %v", ctx.Now(), end)
		}
	})
}

// A sleep to the end of simulated time never ends, so a run whose only task
// sleeps that long has stalled, as a run whose only task waits on a channel
// nobody sends to.
func TestSleepPastEndOfTimeStalls(t *testing.T) {
	for _, d := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Millisecond} {
		mustVerdict(t, ErrStalled, func() {
			New(Config{}).Start(func(ctx *Context) {
				ctx.Sleep(time.Millisecond)
				ctx.Sleep(d)
				t.Errorf("Sleep(%v) returned at %v", d, ctx.Now())
			})
		})
	}
}

func TestAddTimeSaturates(t *testing.T) {
	for _, c := range []struct {
		at   int64
		d    time.Duration
		want int64
	}{
		{0, 5, 5},
		{10, -5, 5},
		{10, -20, 0},
		{1, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MaxInt64, math.MinInt64, 0},
	} {
		if got := addTime(c.at, c.d); got != c.want {
			t.Errorf("addTime(%d, %d) = %d, want %d", c.at, c.d, got, c.want)
		}
	}
}

func TestDefaultTimeZero(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		if !ctx.Now().Equal(epoch) {
			t.Errorf("start time %v", ctx.Now())
		}
	})
}

func TestStartTime(t *testing.T) {
	start := epoch.Add(100 * time.Second)
	New(Config{StartTime: start}).Start(func(ctx *Context) {
		if !ctx.Now().Equal(start) {
			t.Errorf("start time %v, want %v", ctx.Now(), start)
		}
	})
}

func TestStall(t *testing.T) {
	mustVerdict(t, ErrStalled, func() {
		New(Config{}).Start(func(ctx *Context) {
			simrt.NewSignal().Wait(ctx)
		})
	})
}

// A task waiting on what a real goroutine will deliver after a real delay:
// without pacing mode nothing in the simulation can wake it and the
// executor does not wait for real time, so the run stalls at once, before
// the delivery, instead of hanging or waiting for it.
func TestExternalSimulated(t *testing.T) {
	delivery := simrt.NewOneshot[struct{}]()
	var delivered atomic.Bool
	runOver, sent := make(chan struct{}), make(chan struct{})
	go func() { // the outside world: a real goroutine by design
		defer close(sent)
		time.Sleep(50 * time.Millisecond) // wall clock: the real delay is the point
		// Deliver only once the run is over (or it never ends), so that the
		// send cannot race with a live simulation.
		select {
		case <-runOver:
		case <-time.After(10 * time.Second):
		}
		delivered.Store(true)
		delivery.Send(struct{}{})
	}()
	stalledBeforeDelivery := false
	mustVerdict(t, ErrStalled, func() {
		defer func() { stalledBeforeDelivery = !delivered.Load() }()
		New(Config{}).Start(func(ctx *Context) {
			if _, err := delivery.Recv(ctx); err == nil {
				t.Error("the real goroutine's value reached a simulation that is not pacing")
			}
		})
	})
	close(runOver)
	<-sent
	if !stalledBeforeDelivery {
		t.Error("the run waited for the real goroutine's delivery before stalling")
	}
}

func iterations(t *testing.T, metrics string) int {
	t.Helper()
	for _, line := range strings.Split(metrics, "\n") {
		if v, ok := strings.CutPrefix(line, "runtime_iterations_total "); ok {
			f := 0.0
			for _, c := range strings.TrimSuffix(v, ".0") {
				f = f*10 + float64(c-'0')
			}
			return int(f)
		}
	}
	t.Fatal("no runtime_iterations_total in metrics")
	return 0
}

func TestSimulatedSkip(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		ctx.Sleep(time.Second)
		if n := iterations(t, ctx.Encode()); n >= 10 {
			t.Errorf("%d iterations for an idle second: time was not skipped", n)
		}
	})
}

func TestRealtimeNoSkip(t *testing.T) {
	New(Config{External: true, Cycle: time.Microsecond}).Start(func(ctx *Context) {
		ctx.Sleep(time.Millisecond)
		if n := iterations(t, ctx.Encode()); n < 500 {
			t.Errorf("%d iterations in pacing mode: time was skipped", n)
		}
	})
}

func TestExternalRealtime(t *testing.T) {
	New(Config{External: true}).Start(func(ctx *Context) {
		got := Pace(ctx, 0, func() int {
			time.Sleep(20 * time.Millisecond) // a real process taking real time
			return 7
		})
		if got != 7 {
			t.Errorf("paced %d", got)
		}
	})
}

// A paced result one task started waiting for moves to another task: the
// first task's wait is registered and then abandoned (it wakes for another
// case), and the task the handle moves to must receive the pacing timer's
// eventual notification, with the result and the pacing deadline intact.
func TestPacedFutureMovesBetweenTasks(t *testing.T) {
	Timed(time.Second).Start(func(ctx *Context) {
		latency := 10 * time.Millisecond
		deadline := ctx.Now().Add(latency)
		// An immediately ready payload makes the pacing timer the only
		// wakeup source.
		paced := simrt.Spawn(ctx.Child("clock"), func(ctx simrt.Context) int {
			return Pace(ctx, latency, func() int { return 7 })
		})
		// Register this task's wait on the pending result, then move on.
		if i := simrt.Select(ctx, paced.OnDone(nil), simrt.After(ctx, time.Millisecond, nil)); i != 1 {
			t.Fatalf("Select = %d: the paced result was ready before its latency", i)
		}
		moved := simrt.Spawn(ctx.Child("moved"), func(ctx simrt.Context) int {
			v, err := paced.Await(ctx)
			if err != nil || ctx.Now().Before(deadline) {
				t.Errorf("moved task got %d, %v at %v (deadline %v)", v, err, ctx.Now(), deadline)
			}
			return v
		})
		v, err := moved.Await(ctx)
		if v != 7 || err != nil || ctx.Now().Before(deadline) {
			t.Errorf("got %d, %v at %v (deadline %v)", v, err, ctx.Now(), deadline)
		}
	})
}

// A result sampled before a slow real send arrives after it in real time
// but earlier in simulated time; one sampled with a long latency arrives at
// that latency. Results keep their simulated order.
func TestExternalRealtimeVariable(t *testing.T) {
	New(Config{External: true}).Start(func(ctx *Context) {
		realStart := time.Now() // wall clock: this test is about real time
		simStart := ctx.Now()
		wait := 100 * time.Millisecond
		results := simrt.NewUnboundedChan[int]()
		first := simrt.Spawn(ctx.Child("sample_before_send"), func(ctx simrt.Context) struct{} {
			Pace(ctx, 0, func() struct{} { time.Sleep(wait); return struct{}{} })
			if time.Since(realStart) < wait {
				t.Error("first result arrived before the real work finished")
			}
			if ctx.Now().Sub(simStart) >= wait {
				t.Error("first result arrived late in simulated time")
			}
			results.Send(ctx, 1)
			return struct{}{}
		})
		second := simrt.Spawn(ctx.Child("sample_after_send"), func(ctx simrt.Context) struct{} {
			Pace(ctx, wait, func() struct{} { return struct{}{} })
			if time.Since(realStart) < wait {
				t.Error("second result arrived before its latency had passed in real time")
			}
			if ctx.Now().Sub(simStart) < wait {
				t.Error("second result arrived before its latency in simulated time")
			}
			results.Send(ctx, 2)
			return struct{}{}
		})
		second.Await(ctx)
		first.Await(ctx)
		a, _ := results.Recv(ctx)
		b, _ := results.Recv(ctx)
		if a != 1 || b != 2 {
			t.Errorf("order %d, %d", a, b)
		}
	})
}

func TestContextReturn(t *testing.T) {
	var escaped *Context
	New(Config{}).Start(func(ctx *Context) { escaped = ctx })
	mustPanic(t, "context used after its runtime finished", func() { escaped.Now() })
	mustPanic(t, "context used after its runtime finished", func() { escaped.Child("x") })
}

func TestStartTwicePanics(t *testing.T) {
	r := New(Config{})
	r.Start(func(*Context) {})
	mustPanic(t, "Start called twice", func() { r.Start(func(*Context) {}) })
}

func TestCheckpointResumedTwicePanics(t *testing.T) {
	cp := New(Config{}).StartAndRecover(func(*Context) {})
	FromCheckpoint(cp)
	mustPanic(t, "checkpoint already resumed", func() { FromCheckpoint(cp) })
}

func TestRecoverTimePersists(t *testing.T) {
	var before time.Time
	cp := New(Config{}).StartAndRecover(func(ctx *Context) {
		ctx.Sleep(10 * time.Second)
		before = ctx.Now()
	})
	if before.Sub(epoch) != 10*time.Second {
		t.Fatalf("slept to %v", before)
	}
	FromCheckpoint(cp).Start(func(ctx *Context) {
		if !ctx.Now().Equal(before) {
			t.Errorf("recovered at %v, want %v", ctx.Now(), before)
		}
		ctx.Sleep(10 * time.Second)
		if ctx.Now().Sub(epoch) != 20*time.Second {
			t.Errorf("now %v", ctx.Now())
		}
	})
}

func TestRecoverPanicHandling(t *testing.T) {
	cp := New(Config{CatchPanics: true}).StartAndRecover(func(ctx *Context) { simrt.Reschedule(ctx) })
	FromCheckpoint(cp).Start(func(ctx *Context) {
		// The recovered runtime still catches task panics...
		h := simrt.Spawn(ctx, func(simrt.Context) int { panic("caught") })
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrExited) {
			t.Errorf("await: %v", err)
		}
	})
	cp = New(Config{}).StartAndRecover(func(ctx *Context) { simrt.Reschedule(ctx) })
	// ...and the root's own panic always propagates.
	mustPanic(t, "goodbye", func() {
		FromCheckpoint(cp).Start(func(*Context) { panic("goodbye") })
	})
}

func TestRecoverRNGAndAuditorPersist(t *testing.T) {
	var a1, s1 uint64
	var state string
	cp := Seeded(3).StartAndRecover(func(ctx *Context) { a1 = ctx.Rand().Uint64(); state = ctx.Auditor().State() })
	if cp.Auditor().State() != state {
		t.Fatalf("checkpoint auditor %s, run ended at %s", cp.Auditor().State(), state)
	}
	FromCheckpoint(cp).Start(func(ctx *Context) { s1 = ctx.Rand().Uint64() })
	var b1, b2 uint64
	Seeded(3).Start(func(ctx *Context) { b1 = ctx.Rand().Uint64(); b2 = ctx.Rand().Uint64() })
	if a1 != b1 || s1 != b2 {
		t.Fatalf("recovered generator did not continue: %d %d vs %d %d", a1, s1, b1, b2)
	}
}

// The checkpoint's auditor is the run's auditor as it was when the run
// ended: resuming the checkpoint, or recording on the copy, moves neither
// it nor the resumed run.
func TestCheckpointAuditorIsSnapshot(t *testing.T) {
	var ended string
	var endedEvents uint64
	cp := New(Config{Seed: 5, Hooks: Hooks{EventLog: -1}}).StartAndRecover(func(ctx *Context) {
		ctx.Rand().Uint64()
		ended, endedEvents = ctx.Auditor().State(), ctx.Auditor().Log().Total()
	})
	before := cp.Auditor()
	before.Event("outside", []byte("x")) // recorded on a copy: changes nothing else
	var resumed string
	var firstIndex uint64
	FromCheckpoint(cp).Start(func(ctx *Context) {
		ctx.Rand().Uint64()
		resumed = ctx.Auditor().State()
		firstIndex = ctx.Auditor().Log().Events()[endedEvents].Index
	})
	after := cp.Auditor()
	if after.State() != ended || after.Log().Total() != endedEvents {
		t.Errorf("after resuming, the checkpoint's auditor is at %s with %d events; the run ended at %s with %d",
			after.State(), after.Log().Total(), ended, endedEvents)
	}
	if got := after.Log().Events(); len(got) == 0 || got[len(got)-1].State != ended {
		t.Errorf("the checkpoint's event log does not end at the run's last state %s", ended)
	}
	if firstIndex != endedEvents {
		t.Errorf("the resumed run's first event is #%d, want #%d (the count continues)", firstIndex, endedEvents)
	}
	// The same two runs without the outside event give the same resumed state.
	cp2 := New(Config{Seed: 5, Hooks: Hooks{EventLog: -1}}).StartAndRecover(func(ctx *Context) { ctx.Rand().Uint64() })
	var want string
	FromCheckpoint(cp2).Start(func(ctx *Context) { ctx.Rand().Uint64(); want = ctx.Auditor().State() })
	if resumed != want || resumed == ended {
		t.Errorf("resumed run ended at %s; without an event on the copy %s (first run %s)", resumed, want, ended)
	}
}

// TestFatalInsideTask shows that t.FailNow from a simulated task (which
// calls runtime.Goexit) fails the test cleanly: Start's goroutine exits
// after cleanup, and every task has been unwound.
func TestFatalInsideTask(t *testing.T) {
	unwound := 0
	inner := &testing.T{}
	_ = inner
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(Config{}).Start(func(ctx *Context) {
			for range 3 {
				simrt.Spawn(ctx.Child("w"), func(ctx simrt.Context) struct{} {
					defer func() { unwound++ }()
					simrt.NewSignal().Wait(ctx)
					return struct{}{}
				})
			}
			simrt.Reschedule(ctx)
			simrt.Reschedule(ctx)
			goexit() // what t.FailNow does
		})
		t.Error("Start returned after Goexit")
	}()
	<-done
	if unwound != 3 {
		t.Fatalf("%d of 3 tasks unwound", unwound)
	}
}

func TestManyTasksReschedule(t *testing.T) {
	n := 100_000
	if testing.Short() { // the race-detector pass in .ci/run; the full pass runs 100k
		n = 10_000
	}
	run := func() (string, int) {
		var state string
		total := 0
		Seeded(7).Start(func(ctx *Context) {
			hs := make([]*simrt.Handle[int], n)
			for i := range hs {
				hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) int {
					for range 10 {
						simrt.Reschedule(ctx)
					}
					return 1
				})
			}
			for _, h := range hs {
				v, _ := h.Await(ctx)
				total += v
			}
			state = ctx.Auditor().State()
		})
		return state, total
	}
	s1, n1 := run()
	s2, n2 := run()
	if n1 != n || s1 != s2 || n2 != n1 {
		t.Fatalf("runs: %s/%d and %s/%d", s1, n1, s2, n2)
	}
}

// warm reads ahead of the executor; a task whose coroutine is gone (next is
// nil) must not trip it.
func TestWarmTaskWithoutCoroutine(t *testing.T) {
	rt := &runtime{}
	rt.warm(&task{id: 7})
	next := func() (bool, bool) { return false, false }
	rt.warm(&task{id: 8, next: next})
	if rt.warmed == 0 {
		t.Fatal("warm loaded nothing")
	}
}
