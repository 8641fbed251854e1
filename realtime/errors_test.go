package realtime_test

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
)

// TestBindErrorNamesAddressAndCause: a failed Bind still matches
// simrt.ErrBindFailed, and also says which address and why.
func TestBindErrorNamesAddressAndCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := netip.MustParseAddrPort(ln.Addr().String())
	start(slowNet, func(ctx simrt.Context) {
		l, err := ctx.Bind(addr)
		if err == nil {
			l.Close()
			t.Fatalf("Bind of %v, which is in use, succeeded", addr)
		}
		if !errors.Is(err, simrt.ErrBindFailed) || !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("Bind = %v; want it to wrap ErrBindFailed and EADDRINUSE", err)
		}
		if !strings.Contains(err.Error(), addr.String()) {
			t.Errorf("Bind = %q; want the address %v in it", err, addr)
		}
	})
}

// TestDialErrorNamesAddressAndCause: a refused Dial still matches
// simrt.ErrConnectionFailed, and also says which address and why.
func TestDialErrorNamesAddressAndCause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddrPort(ln.Addr().String())
	ln.Close() // nobody listens there now
	start(slowNet, func(ctx simrt.Context) {
		si, st, err := ctx.Dial(addr)
		if err == nil {
			si.Close()
			st.Close()
			t.Errorf("Dial of %v, where nobody listens, succeeded", addr)
			return
		}
		if !errors.Is(err, simrt.ErrConnectionFailed) || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("Dial = %v; want it to wrap ErrConnectionFailed and ECONNREFUSED", err)
		}
		if !strings.Contains(err.Error(), addr.String()) {
			t.Errorf("Dial = %q; want the address %v in it", err, addr)
		}
	})
}
