package simnet_test

import (
	"errors"
	"maps"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/network/simnet"
)

// TestResetHost checks a host reset as its peers see it: bytes that arrived
// are still read, then Recv fails; bytes in flight are lost; Sends to the
// host fail; its ends fail; its listeners close and their addresses are
// free again; connections between other hosts are untouched.
func TestResetHost(t *testing.T) {
	hostC := netip.MustParseAddr("10.0.0.3")
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, b := connect(t, n) // hostA dials srvB (hostB)
		n.SetLink(hostB, hostA, simnet.Link{Latency: time.Second})
		if err := b.sink.Send([]byte("in flight")); err != nil {
			t.Fatalf("Send: %v", err)
		}
		n.SetLink(hostB, hostA, simnet.Link{})
		other, err := n.Bind(netip.AddrPortFrom(hostC, 80))
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		osi, ost, err := n.Host(hostA).Dial(netip.AddrPortFrom(hostC, 80))
		if err != nil {
			t.Fatalf("Dial: %v", err)
		}
		if err := a.sink.Send([]byte("ab")); err != nil {
			t.Fatalf("Send: %v", err)
		}
		ctx.Sleep(10 * time.Millisecond) // "ab" arrived at B
		if got := n.ResetHost(hostA); got != 2 {
			t.Fatalf("ResetHost = %d connections, want 2", got)
		}
		if got, err := b.stream.Recv(2); err != nil || string(got) != "ab" {
			t.Fatalf("peer Recv of delivered bytes = %q, %v", got, err)
		}
		if _, err := b.stream.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Fatalf("peer Recv after the reset: %v, want ErrRecvFailed", err)
		}
		if err := b.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Fatalf("peer Send after the reset: %v, want ErrSendFailed", err)
		}
		if _, err := a.stream.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Fatalf("the reset host's Recv: %v, want ErrRecvFailed (in-flight bytes lost)", err)
		}
		if err := a.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Fatalf("the reset host's Send: %v, want ErrSendFailed", err)
		}
		// hostA -> hostC: reset too, since hostA is an end.
		if err := osi.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Fatalf("Send on a second connection of the host: %v", err)
		}
		_ = ost
		// B's listener is untouched; reset B: its listener closes and its
		// address is free.
		l2, err := n.Bind(srvB)
		if err == nil || l2 != nil {
			t.Fatalf("Bind of a live listener's address succeeded")
		}
		n.ResetHost(hostB)
		if _, err := n.Bind(srvB); err != nil {
			t.Fatalf("Bind after ResetHost: %v", err)
		}
		if _, _, err := n.Host(hostA).Dial(netip.AddrPortFrom(hostC, 80)); err != nil {
			t.Fatalf("Dial to an unrelated host after resets: %v", err)
		}
		_ = other
		want := fault.Counts{"host_reset": 2}
		if got := n.Faults(); !maps.Equal(got, want) {
			t.Fatalf("Faults() = %v, want %v", got, want)
		}
	})
}
