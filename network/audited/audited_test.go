package audited_test

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/simrt/simrt"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/audited"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/suite"
	"github.com/simrt/simrt/telemetry/audit"
)

func TestConformance(t *testing.T) {
	simulator := suite.Runtime{
		Simulated: true,
		Stalled:   deterministic.ErrStalled,
		TimedOut:  deterministic.ErrRunTimeout,
		Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
			cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
			deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
		},
	}
	nettest.Run(t, simulator, func(_ suite.T, ctx simrt.Context) simrt.Network {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		return audited.New(n, deterministic.NewAuditor())
	})
}

// script binds, dials, sends the payload in the given chunks, receives it,
// and provokes a bind and a dial error, all on an audited network.
func script(chunks ...[]byte) string {
	aud := deterministic.NewAuditor()
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := audited.New(simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{}), aud)
		addr := netip.MustParseAddrPort("127.0.0.1:5000")
		l, _ := n.Bind(addr)
		n.Bind(addr)
		n.Dial(netip.MustParseAddrPort("127.0.0.1:1"))
		si, st, _ := n.Dial(addr)
		_, psi, pst, _ := l.Accept()
		si.Send(chunks...)
		pst.Recv(11)
		psi.Send([]byte("ok"))
		st.Recv(2)
	})
	return aud.State()
}

// Two identical networks running the same operations reach the same audit
// state; the payload's chunking does not matter, its bytes do.
func TestSameOperationsSameState(t *testing.T) {
	one := script([]byte("hello world"))
	if again := script([]byte("hello world")); again != one {
		t.Errorf("same script, states %s and %s", one, again)
	}
	if chunked := script([]byte("hel"), []byte("lo wo"), []byte("rld")); chunked != one {
		t.Errorf("chunked payload audits as %s, whole as %s", chunked, one)
	}
	if other := script([]byte("hello World")); other == one {
		t.Errorf("different payload, same state %s", one)
	}
}

// recorder joins chunks itself: the wrapper must then join them.
type recorder struct{ events []string }

func (r *recorder) Event(label audit.Label, fields ...[]byte) {
	s := string(label)
	for _, f := range fields {
		s += " " + string(f)
	}
	r.events = append(r.events, s)
}

func TestEventsWithPlainRecorder(t *testing.T) {
	rec := &recorder{}
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := audited.New(simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{}), rec)
		l, _ := n.Bind(netip.MustParseAddrPort("127.0.0.1:5000"))
		si, _, _ := n.Dial(l.Addr())
		si.Send([]byte("ab"), []byte("c"))
	})
	want := []string{
		"bind_attempt 127.0.0.1:5000", "bind_success 127.0.0.1:5000",
		"dial_attempt 127.0.0.1:5000", "dial_success 127.0.0.1:5000",
		"send_attempt 127.0.0.1:5000 abc", "send_success 127.0.0.1:5000",
	}
	if len(rec.events) != len(want) {
		t.Fatalf("events = %q, want %q", rec.events, want)
	}
	for i := range want {
		if rec.events[i] != want[i] {
			t.Errorf("event %d = %q, want %q", i, rec.events[i], want[i])
		}
	}
}

// Auditing a dial costs no allocation beyond the two wrappers of a
// connection: addresses are formatted once per address, the fields of
// the events are built once, a failure's too.
func TestDialAllocatesOnlyWrappers(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		sim := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		n := audited.New(sim, deterministic.NewAuditor())
		up := netip.MustParseAddrPort("127.0.0.1:5000")
		down := netip.MustParseAddrPort("127.0.0.1:5001")
		if _, err := sim.Bind(up); err != nil {
			t.Fatal(err)
		}
		dial := func(nw interface {
			Dial(netip.AddrPort) (simrt.Sink, simrt.Stream, error)
		}, addr netip.AddrPort) func() {
			return func() { nw.Dial(addr) }
		}
		for _, c := range []struct {
			name  string
			addr  netip.AddrPort
			extra float64
		}{{"failing", down, 0}, {"connecting", up, 2}} {
			n.Dial(c.addr) // the first use of an address builds its fields
			bare := testing.AllocsPerRun(100, dial(sim, c.addr))
			got := testing.AllocsPerRun(100, dial(n, c.addr))
			if got-bare != c.extra {
				t.Errorf("%s dial: %v allocations audited, %v bare: the audit adds %v, want %v",
					c.name, got, bare, got-bare, c.extra)
			}
		}
	})
}

// Auditing an accept costs one allocation beyond the two wrappers: the
// text of the peer's address (a fresh ephemeral port each time).
func TestAcceptAllocatesOnlyWrappersAndPeer(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		sim := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		addr := netip.MustParseAddrPort("127.0.0.1:5000")
		bareL, err := sim.Bind(addr)
		if err != nil {
			t.Fatal(err)
		}
		l, err := audited.New(sim, deterministic.NewAuditor()).Bind(netip.MustParseAddrPort("127.0.0.1:5001"))
		if err != nil {
			t.Fatal(err)
		}
		accept := func(l simrt.Listener, addr netip.AddrPort) func() {
			return func() {
				if _, _, err := sim.Dial(addr); err != nil {
					t.Fatal(err)
				}
				if _, _, _, err := l.Accept(); err != nil {
					t.Fatal(err)
				}
			}
		}
		bare := testing.AllocsPerRun(100, accept(bareL, addr))
		got := testing.AllocsPerRun(100, accept(l, l.Addr()))
		if got-bare != 3 {
			t.Errorf("accept: %v allocations audited, %v bare: the audit adds %v, want 3 (two wrappers and the peer's text)", got, bare, got-bare)
		}
	})
}

// The text of an address in the audit is AddrPort.String's, for every
// kind of address (the field is built with AppendTo).
func TestAddressFieldsAreAddrPortString(t *testing.T) {
	for _, s := range []string{"127.0.0.1:5000", "255.255.255.255:65535", "10.0.0.1:0", "[::1]:80", "[2001:db8::1%eth0]:443", "[::ffff:10.1.2.3]:9"} {
		a := netip.MustParseAddrPort(s)
		rec := &recorder{}
		audited.New(&failing{errs: []error{errors.New("x")}}, rec).Dial(a)
		if want := "dial_attempt " + a.String(); rec.events[0] != want {
			t.Errorf("%s: event %q, want %q", s, rec.events[0], want)
		}
	}
}

// failing is a network whose every dial fails with the next of its errors.
type failing struct {
	simrt.Network
	errs []error
}

func (f *failing) Dial(netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	err := f.errs[0]
	f.errs = f.errs[1:]
	return nil, nil, err
}

// Failures of one address are recorded each with its own error's text, not
// the cached fields of the address's earlier failure.
func TestFailureFieldsFollowTheError(t *testing.T) {
	rec := &recorder{}
	one, two := errors.New("one"), errors.New("two")
	n := audited.New(&failing{errs: []error{one, one, two, one}}, rec)
	addr := netip.MustParseAddrPort("127.0.0.1:5000")
	for range 4 {
		n.Dial(addr)
	}
	var failures []string
	for _, e := range rec.events {
		if strings.HasPrefix(e, "dial_failure") {
			failures = append(failures, e)
		}
	}
	want := []string{"dial_failure 127.0.0.1:5000 one", "dial_failure 127.0.0.1:5000 one",
		"dial_failure 127.0.0.1:5000 two", "dial_failure 127.0.0.1:5000 one"}
	if strings.Join(failures, "|") != strings.Join(want, "|") {
		t.Errorf("failures %q, want %q", failures, want)
	}
}

// Past the cached endpoints (the list, then the map, then none) every
// event still names its own address.
func TestManyAddressesAuditTheirOwn(t *testing.T) {
	rec := &recorder{}
	fail := &failing{}
	n := audited.New(fail, rec)
	var want []string
	for range 2 {
		for i := range 300 {
			addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 1000)
			fail.errs = append(fail.errs, errors.New("refused"))
			n.Dial(addr)
			want = append(want, "dial_attempt "+addr.String(), "dial_failure "+addr.String()+" refused")
		}
	}
	if strings.Join(rec.events, "|") != strings.Join(want, "|") {
		for i := range want {
			if i >= len(rec.events) || rec.events[i] != want[i] {
				t.Fatalf("event %d: got %q, want %q", i, rec.events[min(i, len(rec.events)-1)], want[i])
			}
		}
	}
}
