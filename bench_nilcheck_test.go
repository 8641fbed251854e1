package simrt_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage"
)

// BenchmarkChanSendRecvReady is one Send into a buffered channel with room
// and one Recv of it, by one task, and one Await of a done handle: the
// paths that never park, where the nil checks of Send, Recv and Await (an
// interface or pointer compare each) are the largest share. The simulator
// runs with NoYield, so that no scheduling point moves the measure.
//
//	go test -run '^$' -bench 'ChanSendRecvReady' -benchmem .
func BenchmarkChanSendRecvReady(b *testing.B) {
	body := func(b *testing.B, ctx simrt.Context) {
		c := simrt.NewChan[int](4)
		h := storage.Ready(1, nil)
		for b.Loop() {
			c.Send(ctx, 1)
			c.Recv(ctx)
			h.Await(ctx)
		}
	}
	onRuntimes(b, body)
	b.Run("deterministic-noyield", func(b *testing.B) {
		b.ReportAllocs()
		deterministic.New(deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}).
			Start(func(ctx *deterministic.Context) { body(b, ctx) })
	})
}
