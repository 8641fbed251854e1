package plainmod

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/plaingo"
)

// BenchmarkPlainRoundTrip is one round trip over two unbuffered native
// channels between two goroutines of a plain-Go simulation.
//
// The benchmark's clock is read outside the simulation: inside it,
// time.Now is simulated time.
func BenchmarkPlainRoundTrip(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	plaingo.Run(deterministic.Config{}, func() {
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		for i := 0; i < b.N; i++ {
			ping <- i
			<-pong
		}
		close(ping)
	})
	b.StopTimer()
}

// BenchmarkChanRoundTrip is the same round trip over two unbuffered
// simrt.Chan between two tasks of a simulation.
func BenchmarkChanRoundTrip(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		ping, pong := simrt.NewChan[int](0), simrt.NewChan[int](0)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for {
				v, ok := ping.Recv(ctx)
				if !ok {
					return struct{}{}
				}
				pong.Send(ctx, v)
			}
		})
		for i := 0; i < b.N; i++ {
			ping.Send(ctx, i)
			pong.Recv(ctx)
		}
		ping.Close()
	})
	b.StopTimer()
}

// BenchmarkPlainSelect is a select over two unbuffered native channels,
// fed alternately by a goroutine, in a plain-Go simulation.
func BenchmarkPlainSelect(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	plaingo.Run(deterministic.Config{}, func() {
		a, c := make(chan int), make(chan int)
		go func() {
			for i := 0; i < b.N; i++ {
				if i%2 == 0 {
					a <- i
				} else {
					c <- i
				}
			}
		}()
		for i := 0; i < b.N; i++ {
			select {
			case <-a:
			case <-c:
			}
		}
	})
	b.StopTimer()
}

// BenchmarkChanSelect is the same with simrt.Chan and simrt.Select.
func BenchmarkChanSelect(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		a, c := simrt.NewChan[int](0), simrt.NewChan[int](0)
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			for i := 0; i < b.N; i++ {
				if i%2 == 0 {
					a.Send(ctx, i)
				} else {
					c.Send(ctx, i)
				}
			}
			return struct{}{}
		})
		onA, onC := a.OnRecv(func(int, bool) {}), c.OnRecv(func(int, bool) {})
		for i := 0; i < b.N; i++ {
			simrt.Select(ctx, onA, onC)
		}
	})
	b.StopTimer()
}
