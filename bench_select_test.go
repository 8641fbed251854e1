package simrt_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

// The benchmarks of this file measure Select and channel hops on each
// runtime, with their allocations:
//
//	go test -run '^$' -bench 'Select|ChanHop' -benchmem .

// BenchmarkSelectReady is a Select over four cases of which two are ready
// at once (the random choice between them, and the disarming of the
// others).
func BenchmarkSelectReady(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		a, c := simrt.NewChan[int](1), simrt.NewChan[int](1)
		empty := simrt.NewChan[int](1)
		var m simrt.Mutex
		m.Lock(ctx)
		for b.Loop() {
			a.TrySend(1)
			c.TrySend(2)
			simrt.Select(ctx, a.OnRecv(nil), c.OnRecv(nil), empty.OnRecv(nil), m.OnLock(nil))
			a.TryRecv()
			c.TryRecv()
		}
		m.Unlock()
	})
}

// BenchmarkSelectParked is a Select on a receive and a timeout that parks
// until a second task sends (the pattern of a loop with a deadline): one
// round trip between the two tasks per iteration.
func BenchmarkSelectParked(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		ping, pong := simrt.NewChan[int](1), simrt.NewChan[int](1)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for v, ok := ping.Recv(ctx); ok; v, ok = ping.Recv(ctx) {
				pong.Send(ctx, v)
			}
			return struct{}{}
		})
		for b.Loop() {
			ping.Send(ctx, 1)
			simrt.Select(ctx, pong.OnRecv(nil), simrt.After(ctx, time.Hour, nil))
		}
		ping.Close()
	})
}

// BenchmarkChanHop is one round trip over two channels of capacity 1
// between two tasks, each side parking once per round trip.
func BenchmarkChanHop(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		ping, pong := simrt.NewChan[int](1), simrt.NewChan[int](1)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for v, ok := ping.Recv(ctx); ok; v, ok = ping.Recv(ctx) {
				pong.Send(ctx, v)
			}
			return struct{}{}
		})
		for b.Loop() {
			ping.Send(ctx, 1)
			pong.Recv(ctx)
		}
		ping.Close()
	})
}

// BenchmarkParkFloor is the floor under BenchmarkChanHop and realtime's
// BenchmarkChanPingPong: one round trip between two tasks that do nothing
// but hand a turn back and forth with Park and Unpark (what a channel hop
// costs before the channel does anything), against two goroutines doing
// the same over two Go channels of capacity 1.
func BenchmarkParkFloor(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		var turn atomic.Uint32 // 1: the partner's turn
		var partner atomic.Pointer[core.Task]
		me := ctx.CurrentTask()
		var stop atomic.Bool
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			t := ctx.CurrentTask()
			partner.Store(t)
			me.Unpark()
			for {
				for turn.Load() != 1 {
					t.Park()
				}
				if stop.Load() {
					return struct{}{}
				}
				turn.Store(0)
				me.Unpark()
			}
		})
		for partner.Load() == nil {
			me.Park()
		}
		p := partner.Load()
		for b.Loop() {
			turn.Store(1)
			p.Unpark()
			for turn.Load() != 0 {
				me.Park()
			}
		}
		stop.Store(true)
		turn.Store(1)
		p.Unpark()
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		ping, pong := make(chan struct{}, 1), make(chan struct{}, 1)
		go func() {
			for range ping {
				pong <- struct{}{}
			}
		}()
		for b.Loop() {
			ping <- struct{}{}
			<-pong
		}
		close(ping)
	})
}
