package simnet_test

import (
	"net/netip"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// TestHostBindUnspecifiedIsTheHost checks that a host other than 127.0.0.1
// binding 0.0.0.0:p listens on its own address: several hosts can listen
// on the same port, a dial to the host reaches it, and ResetHost frees the
// address for the restarted process.
func TestHostBindUnspecifiedIsTheHost(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
		any := netip.AddrPortFrom(netip.IPv4Unspecified(), 7000)
		la, err := ctx.WithHost(a).Bind(any)
		if err != nil {
			t.Fatalf("bind on %v: %v", a, err)
		}
		if got := la.Addr(); got != netip.AddrPortFrom(a, 7000) {
			t.Errorf("listener address %v, want %v:7000", got, a)
		}
		if _, err := ctx.WithHost(b).Bind(any); err != nil {
			t.Fatalf("second host binding the same port: %v", err)
		}
		if _, _, err := ctx.WithHost(b).Dial(netip.AddrPortFrom(a, 7000)); err != nil {
			t.Fatalf("dial %v:7000: %v", a, err)
		}
		ctx.Network().ResetHost(a)
		if _, err := ctx.WithHost(a).Bind(any); err != nil {
			t.Fatalf("bind after ResetHost: %v", err)
		}
	})
}
