package deterministic_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/netconn"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/suite"
)

// The runtime's own network (metered → audited → simnet) passes the
// conformance suite.
func TestNetworkConformance(t *testing.T) {
	nettest.Run(t, simulator, nil)
}

// The receive-memory cases on the runtime's own network, with nettest's
// small budget.
func TestNetworkConformanceRecvMemory(t *testing.T) {
	budget := simulator
	budget.Run = func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout,
			Network: simnet.Config{MaxRecvMemory: nettest.BudgetRecvMemory}}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	}
	nettest.RunRecvMemory(t, budget, nil)
}

// The Dial cases of the suite on the runtime's own network, with a Dial
// that hangs on a clog (it waits for the release, which never comes).
func TestNetworkConformanceDial(t *testing.T) {
	nettest.RunDial(t, simulator, func(t suite.T, root simrt.Context) (simrt.Network, netip.AddrPort) {
		ctx := root.(*deterministic.Context)
		far := netip.MustParseAddr("10.0.0.9")
		ctx.WithHost(far)                   // declares the far host
		ctx = ctx.WithHost(simnet.Loopback) // and the dialers' (the default, undeclared until then)
		if err := ctx.Network().Clog(simnet.Loopback, far); err != nil {
			t.Fatal(err)
		}
		return ctx, netip.AddrPortFrom(far, 80)
	})
}

// The reference's bind rule for dialers' ports: 127.0.0.1 may not bind a
// port in [EphemeralStart, EphemeralEnd); the ports around the range, and
// the same ports on another address, bind.
func TestBindRefusesEphemeralPortsOnLoopback(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		for _, c := range []struct {
			addr string
			ok   bool
		}{
			{"127.0.0.1:32768", false}, // simnet.EphemeralStart
			{"127.0.0.1:45000", false},
			{"127.0.0.1:60999", false}, // simnet.EphemeralEnd - 1
			{"127.0.0.1:32767", true},
			{"127.0.0.1:61000", true},
			{"10.0.0.1:40000", true},
			{"0.0.0.0:40001", true}, // 40000 is bound on 10.0.0.1, an address of this host
		} {
			_, err := ctx.Bind(netip.MustParseAddrPort(c.addr))
			if c.ok && err != nil || !c.ok && !errors.Is(err, simrt.ErrBindFailed) {
				t.Errorf("Bind(%s) = %v; want ok %v (ErrBindFailed otherwise)", c.addr, err, c.ok)
			}
		}
	})
}

// 0.0.0.0:80 takes port 80 on every address of the host, as in
// production: a Bind of 127.0.0.1:80 beside it fails. A dial reaches the
// listener bound at its exact address; a dial to 127.0.0.1:80, where
// nothing is bound, reaches 0.0.0.0:80; a dial to another address no one
// bound fails.
func TestUnspecifiedAddressTakesThePort(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		any80, err := ctx.Bind(netip.MustParseAddrPort("0.0.0.0:80"))
		if err != nil {
			t.Fatalf("Bind(0.0.0.0:80): %v", err)
		}
		if _, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:80")); !errors.Is(err, simrt.ErrBindFailed) {
			t.Fatalf("Bind(127.0.0.1:80) beside 0.0.0.0:80 = %v, want ErrBindFailed", err)
		}
		lo81, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:81"))
		if err != nil {
			t.Fatalf("Bind(127.0.0.1:81): %v", err)
		}
		for _, l := range []simrt.Listener{lo81, any80} {
			si, _, err := ctx.Dial(l.Addr())
			if err != nil {
				t.Fatalf("Dial(%v): %v", l.Addr(), err)
			}
			si.Send([]byte(l.Addr().String()))
		}
		for _, l := range []simrt.Listener{lo81, any80} {
			_, _, st, err := l.Accept()
			if err != nil {
				t.Fatalf("Accept on %v: %v", l.Addr(), err)
			}
			want := l.Addr().String()
			if got, err := st.Recv(len(want)); err != nil || string(got) != want {
				t.Errorf("listener %v received %q, %v; want the dial to its own address", l.Addr(), got, err)
			}
		}
		si, _, err := ctx.Dial(netip.MustParseAddrPort("127.0.0.1:80"))
		if err != nil {
			t.Fatalf("Dial(127.0.0.1:80) with 0.0.0.0:80 bound: %v", err)
		}
		si.Send([]byte("loopback"))
		if _, _, st, err := any80.Accept(); err != nil {
			t.Errorf("Accept on 0.0.0.0:80 after a dial to 127.0.0.1:80: %v", err)
		} else if got, err := st.Recv(8); err != nil || string(got) != "loopback" {
			t.Errorf("0.0.0.0:80 received %q, %v; want the dial to 127.0.0.1:80", got, err)
		}
		if _, _, err := ctx.Dial(netip.MustParseAddrPort("10.0.0.7:80")); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial(10.0.0.7:80) with only 0.0.0.0:80 and 127.0.0.1:81 bound = %v, want ErrConnectionFailed", err)
		}
	})
}

// Close frees a bound address, as in production: binding it again
// succeeds, and a dial in between fails.
func TestCloseFreesAddress(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		addr := netip.MustParseAddrPort("127.0.0.1:7000")
		l, err := ctx.Bind(addr)
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		if _, err := ctx.Bind(addr); !errors.Is(err, simrt.ErrBindFailed) {
			t.Errorf("second Bind while open = %v, want ErrBindFailed", err)
		}
		l.Close()
		if _, _, err := ctx.Dial(addr); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial after Close = %v, want ErrConnectionFailed", err)
		}
		l2, err := ctx.Bind(addr)
		if err != nil {
			t.Fatalf("Bind after Close = %v, want a listener", err)
		}
		l.Close() // a second Close of the old listener leaves the new one bound
		if _, _, err := ctx.Dial(addr); err != nil {
			t.Errorf("Dial of the rebound address: %v", err)
		}
		l2.Close()
	})
}

// Every dial attempt takes the next ephemeral port, a failed one too: after
// two failed dials, the next connection comes from EphemeralStart+2.
func TestFailedDialsUseUpPorts(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		for range 2 {
			if _, _, err := ctx.Dial(netip.MustParseAddrPort("127.0.0.1:9001")); !errors.Is(err, simrt.ErrConnectionFailed) {
				t.Fatalf("Dial to an unbound port = %v, want ErrConnectionFailed", err)
			}
		}
		for i := range 2 {
			if _, _, err := ctx.Dial(l.Addr()); err != nil {
				t.Fatalf("Dial %d: %v", i, err)
			}
			peer, _, _, err := l.Accept()
			if want := netip.AddrPortFrom(simnet.Loopback, uint16(simnet.EphemeralStart+2+i)); err != nil || peer != want {
				t.Errorf("connection %d comes from %v, %v; want %v (each failed dial took a port)", i, peer, err, want)
			}
		}
	})
}

// A context made with WithHost dials from its host: the listener sees the
// host's address, and a partition between the hosts fails the dial.
func TestWithHostDialsFromHost(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	srv := netip.AddrPortFrom(b, 80)
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		l, err := ctx.WithHost(b).Bind(srv)
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		client := ctx.WithHost(a)
		if client.Host() != a || ctx.Host() != netip.MustParseAddr("127.0.0.1") {
			t.Errorf("Host() = %v, %v", client.Host(), ctx.Host())
		}
		si, st, err := client.Child("child").(*deterministic.Context).Dial(srv)
		if err != nil {
			t.Fatalf("Dial: %v", err)
		}
		defer si.Close()
		defer st.Close()
		peer, _, _, err := l.Accept()
		if err != nil || peer.Addr() != a {
			t.Errorf("Accept = %v, %v; want a peer at %v", peer, err, a)
		}
		client.Network().Partition(a, b)
		if _, _, err := client.Dial(srv); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial across a partition: %v, want ErrConnectionFailed", err)
		}
		if _, _, err := ctx.Dial(srv); err != nil {
			t.Errorf("Dial from another host: %v", err)
		}
	})
}

// The network metrics count connections and bytes in the runtime's
// registry.
func TestNetworkMetrics(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		l, _ := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
		si, st, _ := ctx.Dial(l.Addr())
		_, psi, pst, _ := l.Accept()
		si.Send([]byte("hello"))
		pst.Recv(5)
		psi.Send([]byte("hi"))
		st.Recv(2)
		text := ctx.Encode()
		for _, want := range []string{
			"runtime_inbound_connections_total 1",
			"runtime_outbound_connections_total 1",
			"runtime_inbound_bandwidth_total 7",
			"runtime_outbound_bandwidth_total 7",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("metrics lack %q:\n%s", want, text)
			}
		}
	})
}

// A crypto/tls handshake and an echo run over the simulated network
// through the net.Conn adapters, with certificates checked in simulated
// time. Since Go 1.26 crypto ignores the random source it is given (the
// context, here; unless GODEBUG=cryptocustomrand=1) and draws from
// crypto/rand, so the key and the handshake's
// randomness come from cryptotest.SetGlobalRandom's seeded generator; with
// it, the same seed gives the same audit state, every TLS byte included.
func TestTLSOverSimulatedNetwork(t *testing.T) {
	run := func() string {
		var state string
		t.Run("run", func(t *testing.T) {
			cryptotest.SetGlobalRandom(t, 42)
			deterministic.Seeded(42).Start(func(ctx *deterministic.Context) {
				tlsEcho(t, ctx)
				state = ctx.Auditor().State()
			})
		})
		return state
	}
	first, second := run(), run()
	if first != second {
		t.Errorf("same seed, different audit states: %s, %s", first, second)
	}
}

func tlsEcho(t *testing.T, ctx *deterministic.Context) {
	cert, pool := selfSigned(t, ctx)
	addr := netip.MustParseAddrPort("127.0.0.1:443")
	l, err := ctx.Bind(addr)
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	server := simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) error {
		nl := netconn.NewListener(ctx, l)
		c, err := nl.Accept()
		if err != nil {
			return err
		}
		// tls.Conn.Close sets a wall-clock write deadline: close c instead.
		defer c.Close()
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, Time: ctx.Now})
		buf := make([]byte, 5)
		if _, err := io.ReadFull(tc, buf); err != nil {
			return err
		}
		_, err = tc.Write(buf)
		return err
	})
	si, st, err := ctx.Dial(addr)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	c := netconn.New(ctx, si, st, netip.AddrPort{}, addr)
	defer c.Close()
	tc := tls.Client(c, &tls.Config{RootCAs: pool, ServerName: "sim.test", Time: ctx.Now})
	tc.SetDeadline(ctx.Now().Add(time.Minute))
	if err := tc.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if _, err := tc.Write([]byte("hello")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	got := make([]byte, 5)
	if _, err := io.ReadFull(tc, got); err != nil || !bytes.Equal(got, []byte("hello")) {
		t.Fatalf("echo = %q, %v", got, err)
	}
	if err, _ := server.Await(ctx); err != nil {
		t.Errorf("server: %v", err)
	}
}

// selfSigned makes a P-256 certificate for sim.test, valid around the
// simulated now. The context passed as the random source is ignored (see
// TestTLSOverSimulatedNetwork): the key comes from crypto/rand, seeded by
// cryptotest.SetGlobalRandom.
func selfSigned(t *testing.T, ctx *deterministic.Context) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), ctx)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "sim.test"},
		DNSNames:     []string{"sim.test"},
		NotBefore:    ctx.Now().Add(-time.Hour),
		NotAfter:     ctx.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true,

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(ctx, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// The network handle a context gives out has the fault controls only: no
// Bind, Dial, Accept or per-host view, so no connection can skip the
// context's stack. The controls work, and a Dial through the context is
// audited.
func TestNetworkHandleIsControlsOnly(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	srv := netip.AddrPortFrom(b, 80)
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
		typ := reflect.TypeOf(ctx.Network())
		for _, m := range []string{"Bind", "Dial", "Accept", "Host"} {
			if _, ok := typ.MethodByName(m); ok {
				t.Errorf("%v has a %s method: user code can bypass the audited stack", typ, m)
			}
		}
		if _, err := ctx.WithHost(b).Bind(srv); err != nil {
			t.Fatalf("Bind: %v", err)
		}
		client := ctx.WithHost(a)
		if err := client.Network().Partition(a, b); err != nil {
			t.Fatalf("Partition: %v", err)
		}
		if _, _, err := client.Dial(srv); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial across a partition: %v, want ErrConnectionFailed", err)
		}
		if got := ctx.Network().Effects(); len(got) != 1 || got[0].Fault != "partition" {
			t.Errorf("Effects = %+v, want one partition", got)
		}
		ctx.Network().Join(a, b)
		si, st, err := client.Dial(srv)
		if err != nil {
			t.Fatalf("Dial after Join: %v", err)
		}
		si.Close()
		st.Close()
		var attempts, successes int
		for _, e := range ctx.Auditor().Log().Events() {
			switch e.Label {
			case "dial_attempt":
				attempts++
			case "dial_success":
				successes++
			}
		}
		if attempts != 2 || successes != 1 {
			t.Errorf("audited dials: %d attempts, %d successes; want 2 and 1", attempts, successes)
		}
	})
}
