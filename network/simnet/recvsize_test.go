package simnet_test

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// Config.MaxRecvSize sets the largest Recv: exactly it succeeds, one byte
// more fails at once with ErrRecvTooLarge and poisons the stream, as the
// tcp network's field of the same name does (its fuzz test checks it).
func TestMaxRecvSizeConfigured(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{MaxRecvSize: 10})
		l, _ := n.Bind(netip.MustParseAddrPort("127.0.0.1:1000"))
		si, st, err := n.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer si.Close()
		defer st.Close()
		_, psi, pst, _ := l.Accept()
		defer psi.Close()
		defer pst.Close()
		if err := si.Send(make([]byte, 30)); err != nil {
			t.Fatal(err)
		}
		if b, err := pst.Recv(10); err != nil || len(b) != 10 {
			t.Errorf("Recv(MaxRecvSize) = %d bytes, %v; want 10 bytes", len(b), err)
		}
		if _, err := pst.Recv(11); !errors.Is(err, simrt.ErrRecvTooLarge) || !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("Recv(MaxRecvSize+1) = %v, want ErrRecvTooLarge", err)
		}
		if _, err := pst.Recv(1); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Recv after a Recv above the maximum = %v, want ErrClosed", err)
		}
	})
}

// A connection is one allocation: its two pipes and four halves together
// (six before), plus the amortised growth of the network's lists.
func TestDialAllocatesOneConnection(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		addr := netip.MustParseAddrPort("127.0.0.1:5000")
		if _, err := n.Bind(addr); err != nil {
			t.Fatal(err)
		}
		n.Dial(addr)
		if got := testing.AllocsPerRun(200, func() { n.Dial(addr) }); got > 1.1 {
			t.Errorf("a dial allocates %v objects, want 1 (and amortised list growth)", got)
		}
	})
}
