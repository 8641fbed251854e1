package simnet_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/telemetry/audit"
)

// onSimnet runs f with a bare simnet on a fresh simulator.
func onSimnet(f func(ctx *deterministic.Context, n *simnet.Network)) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		f(ctx, simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{}))
	})
}

// A Bind of port 0 takes the next free port of the assigned range on its
// address: 61000, then 61001 on 127.0.0.1; ports bound explicitly are
// skipped; each address counts on its own; 0.0.0.0:0 on the default host
// skips the ports any of its addresses holds; a host binding 0.0.0.0:0
// gets a port of its own address; and an assigned address is in use.
func TestBindPortZeroAssignsNextFreePort(t *testing.T) {
	onSimnet(func(_ *deterministic.Context, n *simnet.Network) {
		a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
		if _, err := n.Bind(netip.AddrPortFrom(a, simnet.AssignStart+1)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			net  simrt.Network
			bind string
			want string
		}{
			{n, "127.0.0.1:0", "127.0.0.1:61000"},
			{n, "127.0.0.1:0", "127.0.0.1:61001"},
			{n, "[::ffff:127.0.0.1]:0", "127.0.0.1:61002"}, // unmapped, as every address
			{n, "10.0.0.1:0", "10.0.0.1:61000"},
			{n, "10.0.0.1:0", "10.0.0.1:61002"}, // 61001 is bound
			{n, "10.0.0.2:0", "10.0.0.2:61000"},
			{n, "0.0.0.0:0", "0.0.0.0:61003"}, // 61000-61002 are bound on 127.0.0.1 or 10.0.0.x
			{n.Host(b), "0.0.0.0:0", "10.0.0.2:61001"},
		} {
			l, err := c.net.Bind(netip.MustParseAddrPort(c.bind))
			if err != nil {
				t.Fatalf("Bind(%s): %v", c.bind, err)
			}
			if got := l.Addr().String(); got != c.want {
				t.Errorf("Bind(%s) listens on %s, want %s", c.bind, got, c.want)
			}
		}
		_, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:61000"))
		if want := "bind 127.0.0.1:61000: address in use: bind failed"; !errors.Is(err, simrt.ErrBindFailed) || err == nil || err.Error() != want {
			t.Errorf("Bind of an assigned address = %v, want %q (wrapping ErrBindFailed)", err, want)
		}
	})
}

// When every port of the assigned range is bound on an address, a Bind
// of port 0 there fails, saying so; other addresses still get ports, and
// once ResetHost frees the host's ports the count goes on from 61000.
func TestBindPortZeroExhausted(t *testing.T) {
	onSimnet(func(_ *deterministic.Context, n *simnet.Network) {
		a := netip.MustParseAddr("10.0.0.1")
		zero := netip.AddrPortFrom(a, 0)
		seen := make(map[uint16]bool)
		for i := range simnet.AssignEnd - simnet.AssignStart {
			l, err := n.Bind(zero)
			if err != nil {
				t.Fatalf("Bind %d of %v: %v", i+1, zero, err)
			}
			p := l.Addr().Port()
			if p != uint16(simnet.AssignStart+i) || seen[p] {
				t.Fatalf("Bind %d of %v listens on %v, want port %d", i+1, zero, l.Addr(), simnet.AssignStart+i)
			}
			seen[p] = true
		}
		_, err := n.Bind(zero)
		want := fmt.Sprintf("bind 10.0.0.1:0: every port of %d-%d is bound on 10.0.0.1: bind failed", simnet.AssignStart, simnet.AssignEnd-1)
		if !errors.Is(err, simrt.ErrBindFailed) || err.Error() != want {
			t.Fatalf("Bind of port 0 with every port bound = %v, want %q (wrapping ErrBindFailed)", err, want)
		}
		if l, err := n.Bind(netip.MustParseAddrPort("10.0.0.2:0")); err != nil || l.Addr().Port() != simnet.AssignStart {
			t.Errorf("Bind(10.0.0.2:0) beside a full 10.0.0.1 = %v, %v", l, err)
		}
		n.ResetHost(a)
		if l, err := n.Bind(zero); err != nil || l.Addr().Port() != simnet.AssignStart {
			t.Errorf("Bind of port 0 after ResetHost = %v, %v; want port %d", l, err, simnet.AssignStart)
		}
	})
}

// A failed Bind or Dial of the simulator names the address and the reason
// and still matches the contract's error; the audit records the bare
// error's text only, as it did before errors said more.
func TestBindAndDialErrorsSayWhy(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	var events []audit.Event
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
		used := netip.MustParseAddrPort("127.0.0.1:7000")
		if _, err := ctx.Bind(used); err != nil {
			t.Fatal(err)
		}
		closed, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:7001"))
		if err != nil {
			t.Fatal(err)
		}
		closed.Close()
		if _, err := ctx.WithHost(a).Bind(netip.AddrPortFrom(a, 80)); err != nil {
			t.Fatal(err)
		}
		ctx.WithHost(b)
		if err := ctx.Network().Partition(a, b); err != nil {
			t.Fatal(err)
		}
		bind := func(s string) error { _, err := ctx.Bind(netip.MustParseAddrPort(s)); return err }
		dial := func(c *deterministic.Context, s string) error {
			_, _, err := c.Dial(netip.MustParseAddrPort(s))
			return err
		}
		for _, c := range []struct {
			err  error
			is   error
			want string
		}{
			{bind("127.0.0.1:7000"), simrt.ErrBindFailed, "bind 127.0.0.1:7000: address in use: bind failed"},
			{bind("127.0.0.1:40000"), simrt.ErrBindFailed, "bind 127.0.0.1:40000: 127.0.0.1 keeps ports 32768-60999 for dials: bind failed"},
			{dial(ctx, "127.0.0.1:7002"), simrt.ErrConnectionFailed, "dial 127.0.0.1:7002: connection refused: nothing listens there: connection failed"},
			{dial(ctx, "127.0.0.1:7001"), simrt.ErrConnectionFailed, "dial 127.0.0.1:7001: connection refused: nothing listens there: connection failed"},
			{bind("0.0.0.0:7000"), simrt.ErrBindFailed, "bind 0.0.0.0:7000: address in use (127.0.0.1:7000 is bound): bind failed"},
			{dial(ctx.WithHost(b), "10.0.0.1:80"), simrt.ErrConnectionFailed, "dial 10.0.0.1:80: the path from 10.0.0.2 is cut by partition(10.0.0.1, 10.0.0.2): connection failed"},
		} {
			var op *simnet.OpError
			if c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, c.is) || !errors.As(c.err, &op) {
				t.Errorf("error %v, want %q, an *simnet.OpError wrapping %v", c.err, c.want, c.is)
			}
		}
		events = ctx.Auditor().Log().Events()
	})
	failures := 0
	for _, e := range events {
		var want string
		switch e.Label {
		case audit.BindFailure:
			want = simrt.ErrBindFailed.Error()
		case audit.DialFailure:
			want = simrt.ErrConnectionFailed.Error()
		default:
			continue
		}
		failures++
		if len(e.Fields) != 2 || string(e.Fields[1]) != want {
			t.Errorf("audited %s %q, want the error text %q", e.Label, e.Fields, want)
		}
	}
	if failures != 6 {
		t.Errorf("%d failures audited, want 6", failures)
	}
}
