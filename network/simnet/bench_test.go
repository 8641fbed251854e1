package simnet_test

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// BenchmarkMessages streams b.N messages from one simulated task to
// another: with the link model off (no link configured), and on but idle
// (partitions and clogs elsewhere, and a link whose loss and reset rates
// are configured, so every send draws, but never fire).
func BenchmarkMessages(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"64B", 64}, {"64KiB", 64 << 10}} {
		for _, mode := range []string{"off", "idle"} {
			b.Run(size.name+"/"+mode, func(b *testing.B) {
				benchMessages(b, size.n, mode == "idle")
			})
		}
	}
}

func benchMessages(b *testing.B, size int, idle bool) {
	msg := make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		if idle {
			idleFaults(n)
		}
		l, _ := n.Bind(netip.MustParseAddrPort("127.0.0.1:80"))
		si, _, _ := n.Dial(l.Addr())
		_, _, st, _ := l.Accept()
		b.ResetTimer()
		recv := simrt.Spawn(ctx, func(ctx simrt.Context) error {
			for range b.N {
				if _, err := st.Recv(size); err != nil {
					return err
				}
			}
			return nil
		})
		for range b.N {
			if err := si.Send(msg); err != nil {
				b.Fatal(err)
			}
		}
		if err, _ := recv.Await(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	})
}
