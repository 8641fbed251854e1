package simnet_test

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/telemetry/audit"
)

// recorder collects control event labels.
type recorder []string

func (r *recorder) Event(label audit.Label, _ ...[]byte) { *r = append(*r, string(label)) }

// bare runs f on a network where no host is declared.
func bare(t *testing.T, f func(ctx *deterministic.Context, n *simnet.Network, rec *recorder)) {
	t.Helper()
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		rec := &recorder{}
		f(ctx, simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), rec, simnet.Config{}), rec)
	})
}

// noEffect fails the test unless err is a no-op fault error whose text
// holds every one of want.
func noEffect(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if !errors.Is(err, simnet.ErrNoEffect) {
		t.Errorf("%s: %v, want an error wrapping ErrNoEffect", what, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// TestNoOpFaultIsError checks that every fault between addresses nothing
// uses fails, naming them, and changes, records and counts nothing.
func TestNoOpFaultIsError(t *testing.T) {
	bare(t, func(ctx *deterministic.Context, n *simnet.Network, rec *recorder) {
		c := netip.MustParseAddr("10.0.0.3")
		noEffect(t, "Partition", n.Partition(hostA, hostB), "Partition(10.0.0.1, 10.0.0.2)", "10.0.0.1 or 10.0.0.2", "WithHost")
		noEffect(t, "Cut", n.Cut(hostA, hostB), "Cut(10.0.0.1, 10.0.0.2)")
		noEffect(t, "Clog", n.Clog(hostB, hostA), "Clog(10.0.0.2, 10.0.0.1)")
		noEffect(t, "Isolate", n.Isolate(c), "Isolate(10.0.0.3)", "10.0.0.3")
		noEffect(t, "SetLink", n.SetLink(hostA, hostB, simnet.Link{Latency: time.Millisecond}), "SetLink(10.0.0.1, 10.0.0.2)")
		n.Host(hostA) // one known end is not enough
		noEffect(t, "Partition with one known end", n.Partition(hostA, c), "uses 10.0.0.3")
		if got := n.String(); got != "" {
			t.Errorf("the failed faults changed links:\n%s", got)
		}
		if len(*rec) != 0 {
			t.Errorf("the failed faults were recorded: %q", *rec)
		}
		if got := n.Faults(); len(got) != 0 {
			t.Errorf("the failed faults were counted: %v", got)
		}
		if got := n.Effects(); len(got) != 0 {
			t.Errorf("the failed faults have effects: %v", got)
		}
		// Undoing never fails, and a perfect link is always accepted.
		n.Heal(hostA, c)
		n.Join(c, hostB)
		n.Rejoin(c)
		n.Release(hostB, c)
		n.HealAll()
		if err := n.SetLink(c, hostB, simnet.Link{}); err != nil {
			t.Errorf("SetLink of a perfect link: %v", err)
		}
	})
}

// TestListenerOnlyAddressesTrap is the new user's mistake: two servers
// listen on 10.0.0.1 and 10.0.0.2 but every connection leaves from
// 127.0.0.1, so a partition between the two addresses would cut nothing.
// It is an error that says what to do; declared hosts make it work.
func TestListenerOnlyAddressesTrap(t *testing.T) {
	bare(t, func(ctx *deterministic.Context, n *simnet.Network, _ *recorder) {
		for _, h := range []netip.Addr{hostA, hostB} {
			if _, err := n.Bind(netip.AddrPortFrom(h, 80)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := n.Dial(netip.AddrPortFrom(h, 80)); err != nil {
				t.Fatal(err)
			}
		}
		noEffect(t, "Partition of listeners", n.Partition(hostA, hostB),
			"only listen", "every connection so far comes from 127.0.0.1", "WithHost", "node")
		noEffect(t, "Clog of listeners", n.Clog(hostA, hostB), "only listen")
		// A listener may be isolated: its incoming connections cross its links.
		if err := n.Isolate(hostA); err != nil {
			t.Errorf("Isolate of a listener address: %v", err)
		}
		n.Rejoin(hostA)
		// 127.0.0.1 dialed both: cutting it from either cuts something.
		if err := n.Partition(simnet.Loopback, hostB); err != nil {
			t.Errorf("Partition(127.0.0.1, a listener it dialed): %v", err)
		}
		if _, _, err := n.Dial(netip.AddrPortFrom(hostB, 80)); err == nil {
			t.Errorf("Dial across the partition succeeded")
		}
		// Declaring the hosts (what Context.WithHost and nodes do) makes
		// the partition legal, and it cuts their dials.
		n.Host(hostA)
		if err := n.Partition(hostA, hostB); err != nil {
			t.Fatalf("Partition of declared hosts: %v", err)
		}
		if _, _, err := n.Host(hostA).Dial(netip.AddrPortFrom(hostB, 80)); err == nil {
			t.Errorf("Dial from 10.0.0.1 across the partition succeeded")
		}
	})
}

// TestDialMakesHostsKnown: a dial from a host view declares both ends, even
// a dial that fails because nothing listens.
func TestDialMakesHostsKnown(t *testing.T) {
	bare(t, func(ctx *deterministic.Context, n *simnet.Network, _ *recorder) {
		n.Host(hostA).Dial(srvB) // nothing listens: fails, but both ends are now known
		if err := n.Cut(hostB, hostA); err != nil {
			t.Errorf("Cut after a dial between the hosts: %v", err)
		}
	})
}
