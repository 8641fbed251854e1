//go:build unix

package realtime_test

import (
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
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

// BenchmarkSpawnAwait compares spawning a task and awaiting its value on
// the production runtime with the same work done by a plain goroutine and
// a channel.
func BenchmarkSpawnAwait(b *testing.B) {
	b.Run("realtime", func(b *testing.B) {
		b.ReportAllocs()
		realtime.New(realtime.Config{Logger: quietLogger()}).Start(func(ctx simrt.Context) {
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
	b.Run("goroutine", func(b *testing.B) {
		b.ReportAllocs()
		m := meter()
		for b.Loop() {
			ch := make(chan int, 1)
			go func() { ch <- 1 }()
			if v := <-ch; v != 1 {
				b.Fatal(v)
			}
		}
		m.report(b)
	})
}
