package deterministic

import (
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// BenchmarkAuditorEvent is the cost of one audited event of the shapes a
// run records most: a timer (one 8-byte field), a send (an address and a
// 36-byte payload in one chunk) and a resume (process_task).
func BenchmarkAuditorEvent(b *testing.B) {
	remote, payload, when := []byte("10.0.0.2:7000"), make([]byte, 36), make([]byte, 8)
	b.Run("timer", func(b *testing.B) {
		a := NewAuditor()
		defer reportCPU(b)()
		for b.Loop() {
			a.Event(audit.Timer, when)
		}
	})
	b.Run("recv_success", func(b *testing.B) {
		a := NewAuditor()
		fields := [][]byte{remote, payload}
		defer reportCPU(b)()
		for b.Loop() {
			a.Event(audit.RecvSuccess, fields...)
		}
	})
	b.Run("send_attempt", func(b *testing.B) {
		a := NewAuditor()
		prefix, chunks := [][]byte{remote}, [][]byte{payload}
		defer reportCPU(b)()
		for b.Loop() {
			a.EventChunks(audit.SendAttempt, prefix, chunks)
		}
	})
	b.Run("process_task", func(b *testing.B) {
		a := NewAuditor()
		defer reportCPU(b)()
		for b.Loop() {
			a.processTask(42, "node.listener")
		}
	})
}
