package nettest

import (
	"errors"
	"net/netip"

	"github.com/simrt/simrt"
)

// An unspecified address binds every address of the host on its port, as
// Go's dual-stack listeners do on Linux: while 0.0.0.0:p is bound, a Bind
// of 127.0.0.1:p (or of [::]:p) fails with ErrBindFailed, and while
// 127.0.0.1:p is bound, a Bind of 0.0.0.0:p (or of [::]:p) fails too
// (EADDRINUSE in production). Once the listener that took the port is
// closed, the Bind that failed succeeds.
func bindUnspecifiedTakesThePort(t T, env Env) {
	any4 := netip.IPv4Unspecified()
	loop := anyPort.Addr()
	for _, c := range []struct {
		first  netip.Addr
		second []netip.Addr
	}{
		{any4, []netip.Addr{loop, netip.IPv6Unspecified()}},
		{loop, []netip.Addr{any4, netip.IPv6Unspecified()}},
	} {
		l, err := env.Network().Bind(netip.AddrPortFrom(c.first, 0))
		if err != nil {
			t.Errorf("Bind(%v:0): %v", c.first, err)
			return
		}
		port := l.Addr().Port()
		for _, ip := range c.second {
			addr := netip.AddrPortFrom(ip, port)
			l2, err := env.Network().Bind(addr)
			if !errors.Is(err, simrt.ErrBindFailed) {
				t.Errorf("Bind(%v) while %v is bound = %v, want ErrBindFailed (the port is taken on every address)", addr, l.Addr(), err)
				if l2 != nil {
					l2.Close()
				}
			}
		}
		l.Close()
		again := netip.AddrPortFrom(c.second[0], port)
		l2, err := env.Network().Bind(again)
		if err != nil {
			t.Errorf("Bind(%v) once %v is closed: %v, want a listener", again, l.Addr(), err)
			continue
		}
		l2.Close()
	}
}

// Closing a listener frees its address, as in production: a Bind of the
// same address then succeeds, and a Dial to it reaches the new listener.
// While the first listener is open, the second Bind fails.
func bindAfterCloseSucceeds(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	addr := l.Addr()
	if l2, err := env.Network().Bind(addr); !errors.Is(err, simrt.ErrBindFailed) {
		t.Errorf("second Bind(%v) while the first listener is open = %v, want ErrBindFailed", addr, err)
		if l2 != nil {
			l2.Close()
		}
	}
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	l, err := env.Network().Bind(addr)
	if err != nil {
		t.Errorf("Bind(%v) after Close = %v, want a listener (Close frees the address)", addr, err)
		return
	}
	defer l.Close()
	c, ok := dial(t, env, addr)
	if !ok {
		return
	}
	defer c.close()
	if !send(t, c.sink, "client", clientData) {
		return
	}
	var a conn
	if err := simrt.Timeout(env, guard, func() error {
		_, si, st, err := l.Accept()
		a = conn{si, st}
		return err
	}); err != nil {
		t.Errorf("Accept on the rebound %v: %v", addr, err)
		return
	}
	defer a.close()
	expect(t, a.stream, clientData, "the listener bound after Close")
}

// A Timeout whose time has run out before its function starts (d <= 0)
// cuts an Accept and a Dial at once, although neither would have to wait:
// production always asks the kernel, and an interrupted task's call to it
// unwinds. The Accept leaves the listener open and the connection it did
// not take queued for the next Accept.
func expiredTimeoutCutsAcceptAndDial(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	c, ok := dial(t, env, l.Addr())
	if !ok {
		return
	}
	defer c.close()
	if !send(t, c.sink, "client", clientData) {
		return
	}
	env.Sleep(settle) // the connection reaches the listener's queue
	err := simrt.Timeout(env, 0, func() error {
		_, si, st, err := l.Accept()
		if err == nil {
			conn{si, st}.close()
		}
		return err
	})
	wantErr(t, err, simrt.ErrTimeout, "Accept under an expired Timeout, a connection queued")
	err = simrt.Timeout(env, 0, func() error {
		si, st, err := env.Network().Dial(l.Addr())
		if err == nil {
			conn{si, st}.close()
		}
		return err
	})
	wantErr(t, err, simrt.ErrTimeout, "Dial under an expired Timeout")
	var a conn
	if err := simrt.Timeout(env, guard, func() error {
		_, si, st, err := l.Accept()
		a = conn{si, st}
		return err
	}); err != nil {
		t.Errorf("Accept after the cut one: %v, want the queued connection", err)
		return
	}
	defer a.close()
	expect(t, a.stream, clientData, "the connection the cut Accept left queued")
}

// A Dial to 127.0.0.1:p reaches a listener bound at 0.0.0.0:p, which
// takes every address of the host, as the kernel does for a main that
// binds ":p" and a client on the same host.
func dialLoopbackReachesUnspecified(t T, env Env) {
	l, err := env.Network().Bind(netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
	if err != nil {
		t.Errorf("Bind(0.0.0.0:0): %v", err)
		return
	}
	defer l.Close()
	addr := netip.AddrPortFrom(anyPort.Addr(), l.Addr().Port())
	c, ok := dial(t, env, addr)
	if !ok {
		return
	}
	defer c.close()
	if !send(t, c.sink, "client of "+addr.String(), clientData) {
		return
	}
	var a conn
	if err := simrt.Timeout(env, guard, func() error {
		_, si, st, err := l.Accept()
		a = conn{si, st}
		return err
	}); err != nil {
		t.Errorf("Accept on %v after a Dial to %v: %v", l.Addr(), addr, err)
		return
	}
	defer a.close()
	expect(t, a.stream, clientData, "the listener at "+l.Addr().String())
}
