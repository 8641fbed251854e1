package deterministic_test

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/telemetry/audit"
)

// TestEveryAuditLabelIsListed runs a simulation that does one of each
// audited thing (executor, services, nodes, storage and its faults, the
// network, its failures and its control calls) and checks its event log
// against package audit: every label recorded is one of audit.All, and
// every label of audit.All is recorded by the layer that owns it, so the
// list and the recording sites cannot drift apart.
func TestEveryAuditLabelIsListed(t *testing.T) {
	var events []audit.Event
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
		services(t, ctx)
		storageOps(t, ctx)
		networkOps(t, ctx)
		nodeOps(t, ctx)
		if err := ctx.Stop(0, time.Second); err != nil {
			t.Errorf("Stop: %v", err)
		}
		ctx.Stopped()
		events = ctx.Auditor().Log().Events()
	})
	all := audit.All()
	seen := map[audit.Label]bool{}
	for _, e := range events {
		if !seen[e.Label] && !slices.Contains(all, e.Label) {
			t.Errorf("event %v has label %q, which package audit does not list", e, e.Label)
		}
		seen[e.Label] = true
	}
	for _, l := range all {
		if !seen[l] {
			t.Errorf("label %q of package audit was never recorded", l)
		}
	}
}

func services(t *testing.T, ctx *deterministic.Context) {
	ctx.Rand().Uint64()
	if _, err := ctx.Read(make([]byte, 4)); err != nil {
		t.Errorf("Read: %v", err)
	}
	ctx.Sleep(time.Millisecond)
	ctx.Counter("things", "things done").Inc()
	ctx.Encode()
	ctx.RegisterHost("db", []netip.Addr{netip.MustParseAddr("10.0.0.2")})
	if _, err := ctx.Resolve("db"); err != nil {
		t.Errorf("Resolve: %v", err)
	}
	simrt.Buggify(ctx, "labels_test")
	simrt.Spawn(ctx, func(simrt.Context) int { return 0 }).Await(ctx)
}

func storageOps(t *testing.T, ctx *deterministic.Context) {
	b, _, err := ctx.Open("p", []byte("x"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	_, synced := b.StartSync().Await(ctx)
	for _, err := range []error{
		b.WriteAt(0, 0, []byte("data")), b.ReadAt(make([]byte, 2), 0), b.Resize(2), b.Sync(), synced, b.Close(),
	} {
		if err != nil {
			t.Errorf("blob operation: %v", err)
		}
	}
	if _, err := ctx.Scan("p"); err != nil {
		t.Errorf("Scan: %v", err)
	}
	if err := ctx.Remove("p", []byte("x")); err != nil {
		t.Errorf("Remove: %v", err)
	}
	ctx.SetDiskFault(faulty.DiskFault{Fail: true})
	ctx.SetDiskFault(faulty.DiskFault{})
}

func networkOps(t *testing.T, ctx *deterministic.Context) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	ca, cb := ctx.WithHost(a), ctx.WithHost(b)
	l, err := cb.Bind(netip.AddrPortFrom(b, 80))
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if _, err := cb.Bind(netip.AddrPortFrom(b, 80)); err == nil {
		t.Errorf("second Bind of one port succeeded")
	}
	if _, _, err := ca.Dial(netip.AddrPortFrom(b, 81)); err == nil {
		t.Errorf("Dial of an unbound port succeeded")
	}
	server := simrt.Spawn(cb, func(ctx simrt.Context) error {
		_, _, st, err := l.Accept()
		if err != nil {
			return err
		}
		if _, err := st.Recv(2); err != nil {
			return err
		}
		_, _, _, err = l.Accept() // fails: the listener is closed below
		return err
	})
	si, st, err := ca.Dial(netip.AddrPortFrom(b, 80))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	if err := si.Send([]byte("hi")); err != nil {
		t.Errorf("Send: %v", err)
	}
	ctx.Sleep(time.Millisecond)
	netControl(t, ctx.Network(), a, b)
	if err := si.Send([]byte("x")); err == nil { // the link now resets every send
		t.Errorf("Send over a link with Reset 1 succeeded")
	}
	if _, err := st.Recv(1); err == nil {
		t.Errorf("Recv on a reset connection succeeded")
	}
	l.Close()
	if accepted, err := server.Await(ctx); err != nil || accepted == nil {
		t.Errorf("server = %v, %v; want Accept on the closed listener to fail", accepted, err)
	}
	ctx.Network().ResetHost(b)
}

func netControl(t *testing.T, n *simnet.Controls, a, b netip.Addr) {
	n.SetDefaultLink(simnet.Link{})
	for _, err := range []error{n.SetLink(a, b, simnet.Link{Latency: time.Millisecond}), n.Cut(a, b)} {
		if err != nil {
			t.Errorf("network control: %v", err)
		}
	}
	n.Heal(a, b)
	if err := n.Isolate(a); err != nil {
		t.Errorf("Isolate: %v", err)
	}
	n.Rejoin(a)
	n.HealAll()
	if err := n.Clog(a, b); err != nil {
		t.Errorf("Clog: %v", err)
	}
	n.Release(a, b)
	if err := n.SetLink(a, b, simnet.Link{Reset: 1}); err != nil {
		t.Errorf("SetLink: %v", err)
	}
}

func nodeOps(t *testing.T, ctx *deterministic.Context) {
	n, err := ctx.AddNode(deterministic.NodeConfig{
		Name: "n", Host: netip.MustParseAddr("10.0.0.3"),
		Main: func(ctx simrt.Context) { ctx.Sleep(time.Hour) },
	})
	if err != nil {
		t.Fatalf("AddNode: %v", err)
	}
	ctx.Sleep(time.Millisecond)
	for _, err := range []error{
		n.Pause(time.Second), n.Resume(), n.SetClock(deterministic.NodeClock{Offset: time.Second}),
		n.Kill(), n.Restart(), n.PowerOff(), n.Restart(),
	} {
		if err != nil {
			t.Errorf("node operation: %v", err)
		}
	}
	n.JumpClock(time.Second)
}
