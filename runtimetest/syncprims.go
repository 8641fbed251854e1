package runtimetest

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

var syncCases = []testCase{
	{"WaitGroup", "Wait parks until the counter is zero; Go counts a task until it has returned or unwound, and counts a task that never starts as done at once; a negative counter panics; OnWait is a Select case", waitGroup},
	{"RWMutexShared", "readers share an RWMutex and exclude a writer; a writer excludes everyone; Unlock and RUnlock of a lock not held panic", rwMutexShared},
	{"RWMutexWriterPreference", "a waiting writer holds back new readers and gets the lock before them; when a writer unlocks, the readers waiting get the lock before the next writer (checked in a simulation, where both are surely queued)", rwMutexWriterPreference},
	{"RWMutexAbortedWriter", "a writer aborted while waiting lets in the readers it was holding back", rwMutexAbortedWriter},
	{"Once", "Once.Do runs f exactly once; concurrent callers park until f has ended; f ending by a panic or by an abort counts as done", once},
}

// settle is long enough for tasks spawned just before to run up to their
// first park: more than one executor cycle of a simulation.
const settle = 10 * time.Millisecond

// within fails the test if f has not returned after d of runtime time: a
// broken primitive then fails the case instead of hanging it.
func within(t T, ctx simrt.Context, what string, f func()) {
	t.Helper()
	if err := simrt.Timeout(ctx, 10*time.Second, func() error { f(); return nil }); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func waitGroup(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var wg simrt.WaitGroup
		wg.Wait(ctx) // zero: returns at once
		var done atomic.Int32
		for i := range 3 {
			wg.Add(1)
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				defer wg.Done()
				ctx.Sleep(time.Duration(i+1) * time.Millisecond)
				done.Add(1)
				return struct{}{}
			})
		}
		within(t, ctx, "Wait", func() { wg.Wait(ctx) })
		if n := done.Load(); n != 3 {
			t.Errorf("Wait returned with %d of 3 tasks done", n)
		}

		var ran atomic.Int32
		for range 5 {
			wg.Go(ctx, func(ctx simrt.Context) {
				ctx.Sleep(time.Millisecond)
				ran.Add(1)
			})
		}
		within(t, ctx, "Wait after Go", func() { wg.Wait(ctx) })
		if n := ran.Load(); n != 5 {
			t.Errorf("Wait returned with %d of 5 Go functions done", n)
		}

		// A task aborted while parked counts once it has unwound.
		var unwound atomic.Bool
		parent := simrt.Spawn(ctx, func(pctx simrt.Context) struct{} {
			parked := simrt.NewSignal() // the task must have started: one that never starts counts at once (below)
			wg.Go(pctx, func(ctx simrt.Context) {
				defer unwound.Store(true)
				parked.Fire(1)
				parkForever(ctx)
			})
			parked.Wait(pctx)
			pctx.Sleep(time.Millisecond)
			return struct{}{} // its end aborts the task Go started
		})
		parent.Await(ctx)
		within(t, ctx, "Wait for an aborted task", func() { wg.Wait(ctx) })
		if !unwound.Load() {
			t.Errorf("Wait returned before the aborted task had unwound")
		}

		// A task that never starts counts at once.
		var escaped simrt.Context
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { escaped = ctx; return struct{}{} }).Await(ctx)
		var late atomic.Bool
		wg.Go(escaped, func(simrt.Context) { late.Store(true) })
		within(t, ctx, "Wait for a task that never started", func() { wg.Wait(ctx) })
		if late.Load() {
			t.Errorf("Go from the context of an ended task ran its function")
		}

		wg.Add(1)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			wg.Done()
			return struct{}{}
		})
		never := simrt.NewSignal()
		if i := simrt.Select(ctx, never.OnFire(nil), wg.OnWait(nil)); i != 1 {
			t.Errorf("Select on OnWait = case %d, want 1", i)
		}
		if catchPanic(func() { wg.Done() }) == nil {
			t.Errorf("a negative counter did not panic")
		}
	})
}

func rwMutexShared(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var m simrt.RWMutex
		m.RLock(ctx)
		if !m.TryRLock() {
			t.Errorf("a second reader could not share the lock")
		}
		if m.TryLock() {
			t.Errorf("TryLock succeeded while readers hold the lock")
		}
		var wrote atomic.Bool
		w := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			m.Lock(ctx)
			wrote.Store(true)
			ctx.Sleep(time.Millisecond)
			m.Unlock()
			return struct{}{}
		})
		ctx.Sleep(time.Millisecond)
		if wrote.Load() {
			t.Errorf("a writer got the lock while readers held it")
		}
		m.RUnlock()
		m.RUnlock()
		within(t, ctx, "writer", func() { w.Await(ctx) })
		if !wrote.Load() {
			t.Errorf("the writer did not get the lock once the readers left")
		}
		if !m.TryLock() {
			t.Errorf("TryLock on a free lock failed")
		}
		if m.TryRLock() || m.TryLock() {
			t.Errorf("TryRLock or TryLock succeeded while a writer holds the lock")
		}
		m.Unlock()
		if catchPanic(m.Unlock) == nil {
			t.Errorf("Unlock of an unlocked RWMutex did not panic")
		}
		if catchPanic(m.RUnlock) == nil {
			t.Errorf("RUnlock of an unlocked RWMutex did not panic")
		}
	})
}

// waitingWriter polls until m's only obstacle to readers is a waiting
// writer: TryRLock fails although no writer holds the lock.
func waitingWriter(ctx simrt.Context, m *simrt.RWMutex) {
	for m.TryRLock() {
		m.RUnlock()
		ctx.Sleep(time.Millisecond)
	}
}

func rwMutexWriterPreference(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var m simrt.RWMutex
		log := simrt.NewUnboundedChan[string]()
		locker := func(name string, write bool) *simrt.Handle[struct{}] {
			return simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				if write {
					m.Lock(ctx)
					defer m.Unlock()
				} else {
					m.RLock(ctx)
					defer m.RUnlock()
				}
				log.Send(ctx, name)
				ctx.Sleep(time.Millisecond)
				return struct{}{}
			})
		}
		drain := func() []string {
			var got []string
			for v, ok := log.TryRecv(); ok; v, ok = log.TryRecv() {
				got = append(got, v)
			}
			return got
		}

		m.RLock(ctx)
		w := locker("writer", true)
		within(t, ctx, "the writer to queue", func() { waitingWriter(ctx, &m) })
		rd := locker("reader", false) // arrives while the writer waits
		m.RUnlock()
		within(t, ctx, "writer and reader", func() { w.Await(ctx); rd.Await(ctx) })
		if got := drain(); !slices.Equal(got, []string{"writer", "reader"}) {
			t.Errorf("lock order = %v, want [writer reader]: a waiting writer goes before later readers", got)
		}

		if !r.Simulated {
			return
		}
		m.Lock(ctx)
		w2 := locker("writer", true)
		rd2 := locker("reader", false)
		ctx.Sleep(settle) // both queued
		m.Unlock()
		within(t, ctx, "writer and reader", func() { w2.Await(ctx); rd2.Await(ctx) })
		if got := drain(); !slices.Equal(got, []string{"reader", "writer"}) {
			t.Errorf("lock order after a writer unlocks = %v, want [reader writer]: the waiting readers go first", got)
		}
	})
}

func rwMutexAbortedWriter(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var m simrt.RWMutex
		m.RLock(ctx)
		w := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { m.Lock(ctx); return struct{}{} })
		within(t, ctx, "the writer to queue", func() { waitingWriter(ctx, &m) })
		rd := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			m.RLock(ctx)
			m.RUnlock()
			return struct{}{}
		})
		ctx.Sleep(settle)
		w.Abort()
		within(t, ctx, "the reader held back by the aborted writer", func() { rd.Await(ctx) })
		m.RUnlock()
		if !m.TryLock() {
			t.Errorf("the lock is not free after every reader left")
		}
	})
}

func once(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		var o simrt.Once
		var calls, finished atomic.Int32
		var callers []*simrt.Handle[bool]
		for range 5 {
			callers = append(callers, simrt.Spawn(ctx, func(ctx simrt.Context) bool {
				o.Do(ctx, func() {
					calls.Add(1)
					ctx.Sleep(2 * time.Millisecond)
					finished.Store(1)
				})
				return finished.Load() == 1
			}))
		}
		for i, h := range callers {
			var after bool
			within(t, ctx, "Do", func() { after, _ = h.Await(ctx) })
			if !after {
				t.Errorf("caller %d returned from Do before f had ended", i)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("f ran %d times, want once", n)
		}

		var p simrt.Once
		if catchPanic(func() { p.Do(ctx, func() { panic("boom") }) }) == nil {
			t.Errorf("the panic in f did not reach Do's caller")
		}
		p.Do(ctx, func() { t.Errorf("f ran again after the first one panicked") })

		var a simrt.Once
		first := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			a.Do(ctx, func() { parkForever(ctx) })
			return struct{}{}
		})
		ctx.Sleep(settle)
		second := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			a.Do(ctx, func() { t.Errorf("f ran again while the first was still running") })
			return struct{}{}
		})
		ctx.Sleep(settle)
		first.Abort()
		within(t, ctx, "a caller waiting on an aborted Do", func() { second.Await(ctx) })
		a.Do(ctx, func() { t.Errorf("f ran again after the first one was aborted") })
	})
}
