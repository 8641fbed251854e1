package tcp_test

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// BenchmarkLoopback streams b.N messages over a loopback connection, the
// sender and the receiver on their own goroutines (no runtime: the way
// the production runtime uses the package).
func BenchmarkLoopback(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"64B", 64}, {"64KiB", 64 << 10}} {
		b.Run(size.name, func(b *testing.B) {
			n := tcp.New(tcp.Config{})
			l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			si, st, err := n.Dial(l.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer si.Close()
			defer st.Close()
			_, psi, pst, err := l.Accept()
			if err != nil {
				b.Fatal(err)
			}
			defer psi.Close()
			defer pst.Close()
			msg := make([]byte, size.n)
			b.SetBytes(int64(size.n))
			b.ReportAllocs()
			b.ResetTimer()
			done := make(chan error)
			go func() {
				for range b.N {
					if _, err := pst.Recv(size.n); err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			for range b.N {
				if err := si.Send(msg); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkRecvLargeFewBytes measures what a Recv of the maximum size
// costs when the peer sends four bytes and closes: the memory it reserves
// (B/op) follows the four bytes, not the 32 MiB asked for. Each iteration
// is one connection.
func BenchmarkRecvLargeFewBytes(b *testing.B) {
	n := tcp.New(tcp.Config{})
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	b.ReportAllocs()
	for b.Loop() {
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			b.Fatal(err)
		}
		_, psi, pst, err := l.Accept()
		if err != nil {
			b.Fatal(err)
		}
		if err := si.Send([]byte("four")); err != nil {
			b.Fatal(err)
		}
		si.Close()
		if _, err := pst.Recv(simrt.DefaultMaxRecvSize); !errors.Is(err, simrt.ErrRecvFailed) {
			b.Fatalf("Recv: %v, want ErrRecvFailed", err)
		}
		st.Close()
		psi.Close()
		pst.Close()
	}
}
