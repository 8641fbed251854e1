package tcp_test

import (
	"net/netip"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/tcp"
)

// TestAllocsPerMessage pins what a message costs the production stack
// (network/tcp without a runtime, alone and under network/metered, as
// realtime wires it): a Send allocates nothing, one buffer or several, and
// a Recv allocates only the slice it returns. The variadic slice of a
// Send through the interface is the caller's (built once here).
func TestAllocsPerMessage(t *testing.T) {
	for _, c := range []struct {
		name string
		net  func() simrt.Network
	}{
		{"tcp", func() simrt.Network { return tcp.New(nil, tcp.Config{}) }},
		{"metered", func() simrt.Network {
			return metered.New(tcp.New(nil, tcp.Config{}), prometheus.NewRegistry())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := c.net()
			l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			si, st, err := n.Dial(l.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer si.Close()
			defer st.Close()
			_, psi, pst, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer psi.Close()
			defer pst.Close()
			msg := make([]byte, 64)
			one := [][]byte{msg}
			two := [][]byte{msg[:4], msg[4:]}
			for _, m := range []struct {
				what string
				bufs [][]byte
			}{{"one buffer", one}, {"two buffers", two}} {
				// Each Recv empties the read buffer, so each one reads from
				// the socket too.
				var failed error
				allocs := testing.AllocsPerRun(100, func() {
					if err := si.Send(m.bufs...); err != nil {
						failed = err
						return
					}
					b, err := pst.Recv(64)
					if err != nil {
						failed = err
						return
					}
					b[0] = 1 // the caller owns it
				})
				if failed != nil {
					t.Fatalf("%s: %v", m.what, failed)
				}
				if allocs != 1 {
					t.Errorf("Send (%s) and Recv: %v allocations, want 1 (the slice Recv returns)", m.what, allocs)
				}
				if len(two[0]) != 4 || len(two[1]) != 60 {
					t.Fatalf("Send changed the caller's slice: %d %d", len(two[0]), len(two[1]))
				}
			}
		})
	}
}
