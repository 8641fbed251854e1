package deterministic

import (
	"math/rand/v2"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/metrics"
)

// BenchmarkResumeParts measures, one by one and with warm caches, what a
// resume by the executor does beyond a bare iter.Pull round trip, each per
// resume: the CRC-32C audit of process_task, the two atomic counters (the
// poll metric and the watchdog's progress), the shuffle's share (one
// bounded ChaCha8 draw and one swap per task), and the call chain from
// Reschedule to the park without the switch itself (CurrentTask through
// the shell, the backend interface). The sum is the executor's floor above
// PullShuffled; BenchmarkResumeRatio/100 shows the whole of it. Each part
// also reports its CPU time per resume ("cpu-ns/op"), the figure to read on
// a loaded machine.
func BenchmarkResumeParts(b *testing.B) {
	b.Run("audit", func(b *testing.B) {
		a := NewAuditor()
		defer reportCPU(b)()
		for i := range b.N {
			a.processTask(uint64(i), "worker")
		}
	})
	b.Run("counters", func(b *testing.B) {
		var rt runtime
		l := &metrics.TaskLabel{}
		defer reportCPU(b)()
		for range b.N {
			l.Polls.Add(1)
			rt.progress.Add(1)
		}
	})
	b.Run("shuffle", func(b *testing.B) {
		rt := &runtime{stream: newStream(rand.NewChaCha8([32]byte{1}), nil, nil)}
		q := make([]*task, 10_000)
		for i := range q {
			q[i] = &task{id: uint64(i)}
		}
		defer reportCPU(b)()
		for i := 0; i < b.N; i += len(q) {
			rt.shuffle(q[:min(len(q), b.N-i)])
		}
	})
	b.Run("current-task", func(b *testing.B) {
		Seeded(1).Start(func(ctx *Context) {
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
				b.ResetTimer()
				done := reportCPU(b)
				for range b.N {
					ctx.CurrentTask()
				}
				done()
				b.StopTimer()
				return struct{}{}
			}).Await(ctx)
		})
	})
}

// reportCPU resets b's timer and returns the function that reports the CPU
// time per operation since then as "cpu-ns/op".
func reportCPU(b *testing.B) func() {
	b.ResetTimer()
	c0 := cpuNow()
	return func() { b.ReportMetric(float64(cpuNow()-c0)/float64(b.N), "cpu-ns/op") }
}
