//go:build unix

package realtime_test

import (
	"sync/atomic"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

// floorBox is the smallest rendezvous of one value between tasks built on
// what a simrt.Chan of capacity 1 is built on: a core.Lock around the
// state, and the task park (core.Task Park and Unpark, the production
// runtime's gopark/goready). A receiver that finds the box empty records
// itself and parks; the sender that comes next hands it the value in
// place, marks it done and wakes it under the lock, and the woken receiver
// takes the value without the lock, as a Chan's receiver does. It has no
// queue, no selection, no close, no abort and one receiver at most: what
// is left is the cost of the mechanism.
type floorBox struct {
	mu     core.Lock
	full   bool
	v      int
	waiter *core.Task // a parked receiver, or nil
	done   atomic.Bool
	got    int // the value handed to waiter
}

func (b *floorBox) send(v int) {
	b.mu.Lock()
	if t := b.waiter; t != nil {
		b.waiter = nil
		b.got = v
		b.done.Store(true)
		t.Unpark()
		b.mu.Unlock()
		return
	}
	b.full, b.v = true, v
	b.mu.Unlock()
}

func (b *floorBox) recv(t *core.Task) int {
	b.mu.Lock()
	if b.full {
		b.full = false
		v := b.v
		b.mu.Unlock()
		return v
	}
	b.done.Store(false)
	b.waiter = t
	b.mu.Unlock()
	for !b.done.Load() { // a wake meant for an earlier wait is spurious
		t.Park()
	}
	return b.got
}

// BenchmarkChanPingPongFloor is BenchmarkChanPingPong's round trip over
// two floorBoxes instead of two simrt.Chans: one lock and, per side, one
// park and one wake per hop, as the Chan's hop. Its ratio to
// BenchmarkChanPingPong/goroutine in the same run is what the mechanism
// under Chan can reach against Go's channels.
func BenchmarkChanPingPongFloor(b *testing.B) {
	b.ReportAllocs()
	inRealtime(func(ctx simrt.Context) {
		var ping, pong floorBox
		var stop atomic.Bool
		h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
			t := ctx.CurrentTask()
			for {
				v := ping.recv(t)
				if stop.Load() {
					return 0
				}
				pong.send(v)
			}
		})
		me := ctx.CurrentTask()
		m := meter()
		for b.Loop() {
			ping.send(1)
			if v := pong.recv(me); v != 1 {
				b.Fatal(v)
			}
		}
		m.report(b)
		stop.Store(true)
		ping.send(0)
		h.Await(ctx)
	})
}
