package deterministic_test

import (
	"net/netip"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// ioProbabilities are the yield probabilities the I/O benchmarks compare.
var ioProbabilities = []struct {
	name string
	p    float64
}{{"NoYield", deterministic.NoYield}, {"default", 0}}

// BenchmarkImmediateSend is one 8-byte Send into a loopback connection
// whose buffer has room (the receiver drains 1,024 sends at a time), under
// each yield probability: the cost of the scheduling point at a network
// call that completes at once, and of the yields the default makes there.
//
//	go test -run '^$' -bench 'Immediate' -benchmem ./deterministic
func BenchmarkImmediateSend(b *testing.B) {
	const batch = 1024
	for _, tc := range ioProbabilities {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			deterministic.New(deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: tc.p}}).Start(func(ctx *deterministic.Context) {
				l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
				if err != nil {
					b.Fatal(err)
				}
				si, _, err := ctx.Dial(l.Addr())
				if err != nil {
					b.Fatal(err)
				}
				_, _, st, err := l.Accept()
				if err != nil {
					b.Fatal(err)
				}
				msg := make([]byte, 8)
				n := 0
				for b.Loop() {
					if err := si.Send(msg); err != nil {
						b.Fatal(err)
					}
					if n++; n == batch {
						n = 0
						if _, err := st.Recv(batch * len(msg)); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		})
	}
}

// BenchmarkImmediateWrite is one 8-byte unsynced blob write under each
// yield probability: the cost of the scheduling point at a storage call.
func BenchmarkImmediateWrite(b *testing.B) {
	for _, tc := range ioProbabilities {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			deterministic.New(deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: tc.p}}).Start(func(ctx *deterministic.Context) {
				blob, _, err := ctx.Open("bench", []byte("blob"))
				if err != nil {
					b.Fatal(err)
				}
				msg := make([]byte, 8)
				i := uint64(0)
				for b.Loop() {
					if err := blob.WriteAt(i%4096*8, 0, msg); err != nil {
						b.Fatal(err)
					}
					i++
				}
				if err := blob.Close(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
