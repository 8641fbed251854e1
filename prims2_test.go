package simrt_test

import (
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A waiter released when the counter reaches zero returns even if Add
// raises the counter again before it runs, as with sync.WaitGroup.
func TestWaitGroupWaiterReleasedAtZeroEvenIfReused(t *testing.T) {
	run(t, 1, func(ctx *deterministic.Context) {
		var wg simrt.WaitGroup
		wg.Add(1)
		waiter := simrt.Spawn(ctx, func(ctx simrt.Context) bool { wg.Wait(ctx); return true })
		ctx.Sleep(10 * time.Millisecond) // the waiter is parked
		wg.Done()
		wg.Add(1) // the next round starts before the waiter has run
		if ok, err := waiter.Await(ctx); !ok || err != nil {
			t.Fatalf("waiter = %v, %v", ok, err)
		}
		wg.Done()
	})
}

// A reader handed the lock by a writer's Unlock and aborted before it runs
// gives the lock back.
func TestRWMutexAbortedGrantedReaderReleases(t *testing.T) {
	run(t, 1, func(ctx *deterministic.Context) {
		var m simrt.RWMutex
		m.Lock(ctx)
		reader := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			m.RLock(ctx)
			t.Error("the aborted reader ran on after RLock")
			return struct{}{}
		})
		ctx.Sleep(10 * time.Millisecond) // the reader is queued
		m.Unlock()                       // hands it the read lock
		reader.Abort()                   // before it runs
		reader.Await(ctx)
		ctx.Sleep(10 * time.Millisecond) // it has unwound
		if !m.TryLock() {
			t.Fatal("the read lock handed to an aborted reader was not given back")
		}
	})
}

// A writer handed the lock by the last RUnlock and aborted before it runs
// passes it on to the waiting readers.
func TestRWMutexAbortedGrantedWriterPassesOn(t *testing.T) {
	run(t, 1, func(ctx *deterministic.Context) {
		var m simrt.RWMutex
		m.RLock(ctx)
		writer := simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { m.Lock(ctx); return struct{}{} })
		ctx.Sleep(10 * time.Millisecond)
		reader := simrt.Spawn(ctx, func(ctx simrt.Context) bool { m.RLock(ctx); m.RUnlock(); return true })
		ctx.Sleep(10 * time.Millisecond)
		m.RUnlock()    // hands the lock to the writer
		writer.Abort() // before it runs
		if ok, _ := reader.Await(ctx); !ok {
			t.Fatal("the reader did not get the lock the aborted writer gave back")
		}
	})
}

// Many seeds of tasks that meet on one unbuffered channel from plain calls
// and from Selects with timers: every value arrives exactly once.
func TestUnbufferedSeedsDeliverEachValueOnce(t *testing.T) {
	for seed := range uint64(30) {
		run(t, seed, func(ctx *deterministic.Context) {
			ch := simrt.NewChan[int](0)
			const senders, each = 3, 20
			var wg simrt.WaitGroup
			for s := range senders {
				wg.Go(ctx, func(ctx simrt.Context) {
					for i := range each {
						v := s*each + i
						for simrt.Select(ctx, simrt.After(ctx, time.Millisecond, nil), ch.OnSend(v, nil)) != 1 {
						}
					}
				})
			}
			got := simrt.NewUnboundedChan[int]()
			for k := range 2 {
				simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
					for {
						if k == 0 {
							v, _ := ch.Recv(ctx)
							got.Send(ctx, v)
							continue
						}
						simrt.Select(ctx,
							ch.OnRecv(func(v int, _ bool) { got.Send(ctx, v) }),
							simrt.After(ctx, 2*time.Millisecond, nil))
					}
				})
			}
			wg.Wait(ctx)
			ctx.Sleep(10 * time.Millisecond) // the last receiver has recorded its value
			var all []int
			for v, ok := got.TryRecv(); ok; v, ok = got.TryRecv() {
				all = append(all, v)
			}
			slices.Sort(all)
			want := make([]int, senders*each)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(all, want) {
				t.Fatalf("seed %d: received %v", seed, all)
			}
		})
	}
}
