//go:build unix

package realtime_test

import (
	"io"
	"net"
	goruntime "runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/storage"
)

// cpuMeter reports the process's CPU time (user and system, all threads,
// GC included) per iteration as cpu-ns/op. On a shared machine wall time
// measures the neighbours as much as the code; CPU time does not.
type cpuMeter struct{ start int64 }

func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func meter() cpuMeter { return cpuMeter{cpuNow()} }

func (m cpuMeter) report(b *testing.B) {
	b.ReportMetric(float64(cpuNow()-m.start)/float64(b.N), "cpu-ns/op")
}

// inRealtime runs root as the root task of a production runtime that logs
// nothing, and returns when the runtime has shut down.
func inRealtime(root func(ctx simrt.Context)) {
	realtime.New(realtime.Config{Logger: quietLogger()}).Start(root)
}

// BenchmarkSpawnAwait compares spawning a task and awaiting its value on
// the production runtime with the same work done by a plain goroutine and
// a channel.
func BenchmarkSpawnAwait(b *testing.B) {
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		inRealtime(func(ctx simrt.Context) {
			m := meter()
			for b.Loop() {
				h := simrt.Spawn(ctx, func(simrt.Context) int { return 1 })
				if v, err := h.Await(ctx); v != 1 || err != nil {
					b.Fatal(v, err)
				}
			}
			m.report(b)
		})
	})
	b.Run("goroutine", func(b *testing.B) { goroutineRoundTrip(b, func() {}) })
}

// goroutineRoundTrip measures plain Go's spawn and await: a goroutine sends
// one value on a fresh channel, which the caller receives. alloc runs
// beside it, to allocate more per round trip.
func goroutineRoundTrip(b *testing.B, alloc func()) {
	b.ReportAllocs()
	m := meter()
	for b.Loop() {
		ch := make(chan int, 1)
		alloc()
		go func() { ch <- 1 }()
		if v := <-ch; v != 1 {
			b.Fatal(v)
		}
	}
	m.report(b)
}

// BenchmarkSpawnBlockAwait is BenchmarkSpawnAwait with a task that blocks
// once, as most tasks do: it waits for a value its spawner sends once it has
// let the task run (Reschedule, runtime.Gosched), then returns it. A task's
// first block is where the runtime sets up what only a blocking task needs.
func BenchmarkSpawnBlockAwait(b *testing.B) {
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		inRealtime(func(ctx simrt.Context) {
			m := meter()
			for b.Loop() {
				in := simrt.NewOneshot[int]()
				h := simrt.Spawn(ctx, func(ctx simrt.Context) int {
					v, _ := in.Recv(ctx)
					return v
				})
				simrt.Reschedule(ctx)
				in.Send(1)
				if v, err := h.Await(ctx); v != 1 || err != nil {
					b.Fatal(v, err)
				}
			}
			m.report(b)
		})
	})
	b.Run("goroutine", func(b *testing.B) {
		b.ReportAllocs()
		m := meter()
		for b.Loop() {
			in, out := make(chan int, 1), make(chan int, 1)
			go func() { out <- <-in }()
			goruntime.Gosched()
			in <- 1
			if v := <-out; v != 1 {
				b.Fatal(v)
			}
		}
		m.report(b)
	})
}

// BenchmarkChanPingPong measures one round trip of a value between two
// tasks over two simrt.Chans (capacity 1), in the steady state: each side
// parks and is woken once per round trip. The same with two goroutines and
// two Go channels for comparison.
func BenchmarkChanPingPong(b *testing.B) {
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		inRealtime(func(ctx simrt.Context) {
			ping, pong := simrt.NewChan[int](1), simrt.NewChan[int](1)
			simrt.Spawn(ctx, func(ctx simrt.Context) int {
				for v, ok := ping.Recv(ctx); ok; v, ok = ping.Recv(ctx) {
					pong.Send(ctx, v)
				}
				return 0
			})
			m := meter()
			for b.Loop() {
				ping.Send(ctx, 1)
				if v, ok := pong.Recv(ctx); v != 1 || !ok {
					b.Fatal(v, ok)
				}
			}
			m.report(b)
			ping.Close()
		})
	})
	b.Run("goroutine", func(b *testing.B) {
		b.ReportAllocs()
		ping, pong := make(chan int, 1), make(chan int, 1)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		m := meter()
		for b.Loop() {
			ping <- 1
			if v := <-pong; v != 1 {
				b.Fatal(v)
			}
		}
		m.report(b)
		close(ping)
	})
}

// BenchmarkSpawnAwaitFloor explains BenchmarkSpawnAwait: the same
// goroutine-and-channel round trip as its "goroutine" case, with one more
// object of 96 or 192 bytes allocated per round trip (what allocation
// costs here, garbage collection included), and "handle": a goroutine that
// completes a simrt handle the root awaits, what simrt's handle and park
// protocol cost before the runtime keeps any state for a task.
func BenchmarkSpawnAwaitFloor(b *testing.B) {
	b.Run("goroutine", func(b *testing.B) { goroutineRoundTrip(b, func() {}) })
	b.Run("goroutine+96B", func(b *testing.B) { goroutineRoundTrip(b, func() { sink96 = new([12]*int) }) })
	b.Run("goroutine+192B", func(b *testing.B) { goroutineRoundTrip(b, func() { sink192 = new([24]*int) }) })
	b.Run("handle", func(b *testing.B) {
		b.ReportAllocs()
		inRealtime(func(ctx simrt.Context) {
			m := meter()
			for b.Loop() {
				h, complete := storage.NewCompletion[int]()
				go complete(1, nil)
				if v, err := h.Await(ctx); v != 1 || err != nil {
					b.Fatal(v, err)
				}
			}
			m.report(b)
		})
	})
}

// Escape targets for BenchmarkSpawnAwaitFloor's allocations.
var (
	sink96  *[12]*int
	sink192 *[24]*int
)

// BenchmarkPingPong64 measures one round trip of a 64-byte message over
// loopback TCP: through the production runtime (tasks, Send and Recv of
// the runtime's network) and through plain goroutines and package net.
func BenchmarkPingPong64(b *testing.B) {
	const size = 64
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		inRealtime(func(ctx simrt.Context) {
			l, err := ctx.Bind(loopback)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			simrt.Spawn(ctx.Child("echo"), func(simrt.Context) int {
				_, si, st, err := l.Accept()
				if err != nil {
					return 0
				}
				defer si.Close()
				defer st.Close()
				for {
					msg, err := st.Recv(size)
					if err != nil || si.Send(msg) != nil {
						return 0
					}
				}
			})
			si, st, err := ctx.Dial(l.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer si.Close()
			defer st.Close()
			msg := make([]byte, size)
			m := meter()
			for b.Loop() {
				if err := si.Send(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := st.Recv(size); err != nil {
					b.Fatal(err)
				}
			}
			m.report(b)
		})
	})
	b.Run("tcp", func(b *testing.B) {
		// The runtime's TCP network on plain goroutines, without the
		// runtime: what the network layer costs apart from the runtime.
		b.ReportAllocs()
		n := tcp.New(tcp.Config{})
		l, err := n.Bind(loopback)
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		var echo sync.WaitGroup
		echo.Go(func() {
			_, si, st, err := l.Accept()
			if err != nil {
				return
			}
			defer si.Close()
			defer st.Close()
			for {
				msg, err := st.Recv(size)
				if err != nil || si.Send(msg) != nil {
					return
				}
			}
		})
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			b.Fatal(err)
		}
		msg := make([]byte, size)
		m := meter()
		for b.Loop() {
			if err := si.Send(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := st.Recv(size); err != nil {
				b.Fatal(err)
			}
		}
		m.report(b)
		si.Close()
		st.Close()
		echo.Wait()
	})
	b.Run("net", func(b *testing.B) {
		b.ReportAllocs()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer ln.Close()
		var echo sync.WaitGroup
		echo.Go(func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			buf := make([]byte, size)
			for {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		})
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		msg, buf := make([]byte, size), make([]byte, size)
		m := meter()
		for b.Loop() {
			if _, err := c.Write(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				b.Fatal(err)
			}
		}
		m.report(b)
		c.Close()
		echo.Wait()
	})
}
