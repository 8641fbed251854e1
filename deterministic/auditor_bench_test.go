//go:build unix

package deterministic

import (
	"syscall"
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// processCPU is the process's CPU time (user and system) in nanoseconds:
// on a shared machine it moves much less with the load than wall time.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per iteration since start as cpu-ns/op.
func reportCPU(b *testing.B, start int64) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAuditorEvent is the cost of one audited event of the shapes a
// run records most: a timer (one 8-byte field), a send (an address and a
// 36-byte payload in one chunk) and a resume (process_task).
func BenchmarkAuditorEvent(b *testing.B) {
	remote, payload, when := []byte("10.0.0.2:7000"), make([]byte, 36), make([]byte, 8)
	b.Run("timer", func(b *testing.B) {
		a := NewAuditor()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			a.Event(audit.Timer, when)
		}
	})
	b.Run("recv_success", func(b *testing.B) {
		a := NewAuditor()
		fields := [][]byte{remote, payload}
		defer reportCPU(b, processCPU())
		for b.Loop() {
			a.Event(audit.RecvSuccess, fields...)
		}
	})
	b.Run("send_attempt", func(b *testing.B) {
		a := NewAuditor()
		prefix, chunks := [][]byte{remote}, [][]byte{payload}
		defer reportCPU(b, processCPU())
		for b.Loop() {
			a.EventChunks(audit.SendAttempt, prefix, chunks)
		}
	})
	b.Run("process_task", func(b *testing.B) {
		a := NewAuditor()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			a.processTask(42, "node.listener")
		}
	})
}
