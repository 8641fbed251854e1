package simrt_test

import (
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// The benchmarks of this file measure the uncontended operations of the
// sync-like primitives on each runtime against their sync equivalents:
//
//	go test -run '^$' -bench 'WaitGroup|RWMutex|Once|Unbuffered' -benchmem .

// onRuntimes runs bench as a sub-benchmark on the production runtime and
// on the simulator, each inside a root task.
func onRuntimes(b *testing.B, bench func(b *testing.B, ctx simrt.Context)) {
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		realtime.New(realtime.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).
			Start(func(ctx simrt.Context) { bench(b, ctx) })
	})
	b.Run("deterministic", func(b *testing.B) {
		b.ReportAllocs()
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) { bench(b, ctx) })
	})
}

// BenchmarkWaitGroup is one Add, Done and Wait (which finds the counter at
// zero and returns at once).
func BenchmarkWaitGroup(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		var wg simrt.WaitGroup
		for b.Loop() {
			wg.Add(1)
			wg.Done()
			wg.Wait(ctx)
		}
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(1)
			wg.Done()
			wg.Wait()
		}
	})
}

// BenchmarkRWMutexRLock is one uncontended RLock and RUnlock.
func BenchmarkRWMutexRLock(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		var mu simrt.RWMutex
		for b.Loop() {
			mu.RLock(ctx)
			mu.RUnlock()
		}
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.RWMutex
		for b.Loop() {
			mu.RLock()
			mu.RUnlock()
		}
	})
}

// BenchmarkRWMutexLock is one uncontended Lock and Unlock.
func BenchmarkRWMutexLock(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		var mu simrt.RWMutex
		for b.Loop() {
			mu.Lock(ctx)
			mu.Unlock()
		}
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var mu sync.RWMutex
		for b.Loop() {
			mu.Lock()
			mu.Unlock()
		}
	})
}

// BenchmarkOnce is a Do on a Once that is already done.
func BenchmarkOnce(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		var once simrt.Once
		once.Do(ctx, func() {})
		for b.Loop() {
			once.Do(ctx, func() {})
		}
	})
	b.Run("sync", func(b *testing.B) {
		b.ReportAllocs()
		var once sync.Once
		once.Do(func() {})
		for b.Loop() {
			once.Do(func() {})
		}
	})
}

// BenchmarkUnbufferedPingPong is one round trip over two unbuffered
// channels between two tasks (two rendezvous, each parking one side).
func BenchmarkUnbufferedPingPong(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		ping, pong := simrt.NewChan[int](0), simrt.NewChan[int](0)
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
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		for b.Loop() {
			ping <- 1
			<-pong
		}
		close(ping)
	})
}

// BenchmarkChanSendFull is one value through a channel of capacity 1 from
// a sender that runs ahead of its receiver: the sender parks on the full
// channel and the receive that frees the slot wakes it, the path of a
// woken sender (Send's retry). The same with two goroutines and a Go
// channel for comparison. It counts b.N itself (the sender must know how
// many values to send), so it does not use b.Loop.
func BenchmarkChanSendFull(b *testing.B) {
	onRuntimes(b, func(b *testing.B, ctx simrt.Context) {
		ch := simrt.NewChan[int](1)
		n := b.N
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for i := range n + 1 {
				ch.Send(ctx, i)
			}
			return struct{}{}
		})
		simrt.Reschedule(ctx) // the sender fills the channel and parks
		b.ResetTimer()
		for range n {
			ch.Recv(ctx)
		}
		b.StopTimer()
		ch.Recv(ctx)
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan int, 1)
		n := b.N
		go func() {
			for i := range n + 1 {
				ch <- i
			}
		}()
		for range n {
			<-ch
		}
		<-ch
	})
}
