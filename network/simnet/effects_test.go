package simnet_test

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// effectLines renders n's effects, one String each.
func effectLines(n *simnet.Network) []string {
	var out []string
	for _, e := range n.Effects() {
		out = append(out, e.String())
	}
	return out
}

func wantEffects(t *testing.T, n *simnet.Network, want ...string) {
	t.Helper()
	if got := effectLines(n); !slices.Equal(got, want) {
		t.Errorf("effects\n%q\nwant\n%q", got, want)
	}
}

// TestEffectsOfPartition: a partition counts the Sends in flight when it
// starts and those sent while it lasts as held, and the dials it refuses;
// after Join nothing more is counted on it.
func TestEffectsOfPartition(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.SetLink(hostA, hostB, simnet.Link{Latency: time.Second})
		a, b := connect(t, n)
		ctx.Sleep(time.Second) // the dial's round trip is done: 1s
		a.sink.Send([]byte("in flight"))
		if err := n.Partition(hostA, hostB); err != nil {
			t.Fatal(err)
		}
		a.sink.Send([]byte("x"))
		b.sink.Send([]byte("y")) // the other way too
		if _, _, err := n.Host(hostA).Dial(srvB); err == nil {
			t.Fatal("dial across the partition succeeded")
		}
		n.Join(hostA, hostB)
		a.sink.Send([]byte("z"))
		wantEffects(t, n,
			"link 10.0.0.1 -> 10.0.0.2 (latency=1s jitter=0s bandwidth=0 loss=0 retransmit=0s reset=0) at 0s: 3 sends delayed",
			"partition 10.0.0.1 <-> 10.0.0.2 at 2s: 3 sends held, 1 dials refused")
	})
}

// TestEffectsOfClogAndIsolate: a clog holds dials and sends; an isolation
// refuses dials from and to its host.
func TestEffectsOfClogAndIsolate(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, _ := connect(t, n)
		if err := n.Clog(hostA, hostB); err != nil {
			t.Fatal(err)
		}
		a.sink.Send([]byte("held"))
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Second)
			n.Release(hostA, hostB)
			return struct{}{}
		})
		if _, _, err := n.Host(hostA).Dial(srvB); err != nil { // waits for the release
			t.Fatal(err)
		}
		if err := n.Isolate(hostB); err != nil {
			t.Fatal(err)
		}
		n.Host(hostA).Dial(srvB)
		n.Dial(srvB)
		n.Rejoin(hostB)
		wantEffects(t, n,
			"clog 10.0.0.1 -> 10.0.0.2 at 0s: 1 sends held, 1 dials held",
			"isolate 10.0.0.2 at 1.002s: 2 dials refused")
	})
}

// TestEffectsOfResets: a link's Reset draw and a HoldTimeout count the
// connection reset, and the Sends it dropped, on the fault that caused it.
func TestEffectsOfResets(t *testing.T) {
	sim(t, simnet.Config{HoldTimeout: time.Second}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, _ := connect(t, n)
		if err := n.Partition(hostA, hostB); err != nil {
			t.Fatal(err)
		}
		a.sink.Send([]byte("one"))
		a.sink.Send([]byte("two"))
		ctx.Sleep(2 * time.Second) // the hold timeout resets the connection
		n.Join(hostA, hostB)
		n.SetDefaultLink(simnet.Link{Latency: time.Second, Reset: 0.5})
		c, _ := connect2(t, n)
		for c.sink.Send([]byte("x")) == nil {
		}
		eff := n.Effects()
		if len(eff) != 2 || eff[0].Resets != 1 || eff[0].Dropped != 2 || eff[0].Held != 2 {
			t.Fatalf("partition effect %v, want 2 held, 2 dropped, 1 reset", eff)
		}
		if d := eff[1]; d.Fault != "default_link" || d.Resets != 1 || d.Delayed == 0 || d.Dropped != d.Delayed {
			t.Fatalf("default link effect %+v: want 1 reset dropping every delayed send", d)
		}
	})
}

// connect2 is connect to a second listener on hostB.
func connect2(t *testing.T, n *simnet.Network) (a, b end) {
	t.Helper()
	srv := netip.AddrPortFrom(hostB, 81)
	l, err := n.Bind(srv)
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	si, st, err := n.Host(hostA).Dial(srv)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	_, psi, pst, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	return end{si, st}, end{psi, pst}
}
