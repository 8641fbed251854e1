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
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/nettest"
)

// The runtime's own network (metered → audited → simnet) passes the
// conformance suite.
func TestNetworkConformance(t *testing.T) {
	nettest.Run(t, func(t *testing.T, body func(nettest.Env)) {
		deterministic.Seeded(3).Start(func(ctx *deterministic.Context) {
			body(nettest.Task(ctx, ctx))
		})
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
// through the net.Conn adapters, with the key drawn from the context and
// certificates checked in simulated time. The same seed gives the same
// audit state, every TLS byte included.
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
		nl := simrt.NetListener(ctx, l)
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
	c := simrt.NetConn(ctx, si, st, netip.AddrPort{}, addr)
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
// simulated now, with randomness drawn from the context.
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
