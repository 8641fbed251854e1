package tcp_test

import (
	"net/netip"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/tcp"
)

// TestAllocsPerMessage pins what a message costs: a Send allocates
// nothing, one buffer or several, and a Recv allocates only the slice it
// returns. It covers network/tcp alone and under network/metered (the
// realtime runtime's stack adds its interruption layer between the two;
// realtime's BenchmarkPingPong64 reports it). The variadic slice of a Send through the interface is the
// caller's (built once here).
func TestAllocsPerMessage(t *testing.T) {
	t.Run("tcp", func(t *testing.T) { allocsPerMessage(t, tcp.New(tcp.Config{})) })
	t.Run("metered", func(t *testing.T) {
		allocsPerMessage(t, metered.New(tcp.New(tcp.Config{}), prometheus.NewRegistry()))
	})
}

// allocsPerMessage runs on a task of the network's runtime, if any: it
// reports with t.Errorf and returns, never t.Fatal.
func allocsPerMessage(t *testing.T, n simrt.Network) {
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Errorf("Bind: %v", err)
		return
	}
	defer l.Close()
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		t.Errorf("Dial: %v", err)
		return
	}
	defer si.Close()
	defer st.Close()
	_, psi, pst, err := l.Accept()
	if err != nil {
		t.Errorf("Accept: %v", err)
		return
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
		// Each Recv empties the read buffer, so each one reads from the
		// socket too.
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
			t.Errorf("%s: %v", m.what, failed)
			return
		}
		if allocs != 1 {
			t.Errorf("Send (%s) and Recv: %v allocations, want 1 (the slice Recv returns)", m.what, allocs)
		}
		if len(two[0]) != 4 || len(two[1]) != 60 {
			t.Errorf("Send changed the caller's slice: %d %d", len(two[0]), len(two[1]))
			return
		}
	}
}
