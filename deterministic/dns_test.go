package deterministic

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// RegisterHost refuses an invalid address, leaving the table as it was, so
// that Resolve never returns one.
func TestRegisterHostRefusesInvalidAddress(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		ip := netip.MustParseAddr("10.0.0.7")
		if err := ctx.RegisterHost("x", []netip.Addr{ip}); err != nil {
			t.Fatalf("RegisterHost(x, [%v]): %v", ip, err)
		}
		err := ctx.RegisterHost("x", []netip.Addr{ip, {}})
		if err == nil || !strings.Contains(err.Error(), "invalid") {
			t.Errorf("RegisterHost(x, [%v, {}]) = %v; want an error saying the address is invalid", ip, err)
		}
		if got, err := ctx.Resolve("x"); err != nil || !slices.Equal(got, []netip.Addr{ip}) {
			t.Errorf("after a refused RegisterHost, Resolve(x) = %v, %v; want [%v]", got, err, ip)
		}
		if err := ctx.RegisterHost("y", []netip.Addr{{}}); err == nil {
			t.Errorf("RegisterHost(y, [{}]) accepted")
		}
		if got, err := ctx.Resolve("y"); err == nil {
			t.Errorf("Resolve(y) = %v; want no entry", got)
		}
	})
}
