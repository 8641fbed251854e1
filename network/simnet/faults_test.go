package simnet_test

import (
	"maps"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/network/simnet"
)

// TestFaultsCounted checks that Faults counts control faults by call and
// the faults links draw, and nothing for calls that heal.
func TestFaultsCounted(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		if got := n.Faults(); len(got) != 0 {
			t.Fatalf("fresh network: Faults() = %v, want none", got)
		}
		n.Partition(hostA, hostB)
		n.Join(hostA, hostB)
		n.Cut(hostA, hostB)
		n.Heal(hostA, hostB)
		n.Isolate(hostA)
		n.Rejoin(hostA)
		n.Clog(hostA, hostB)
		n.Clog(hostB, hostA)
		n.Release(hostA, hostB)
		n.Release(hostB, hostA)
		n.HealAll()
		n.SetLink(hostA, hostB, simnet.Link{Loss: 1, Retransmit: time.Millisecond})
		a, _ := connect(t, n)
		if err := a.sink.Send([]byte("x")); err != nil {
			t.Fatalf("Send: %v", err)
		}
		n.SetLink(hostA, hostB, simnet.Link{Reset: 1})
		if err := a.sink.Send([]byte("y")); err == nil {
			t.Fatalf("Send over a link with Reset 1: no error")
		}
		want := fault.Counts{"partition": 1, "cut": 3, "isolate": 1, "clog": 2, "link_loss": 8, "link_reset": 1}
		if got := n.Faults(); !maps.Equal(got, want) {
			t.Fatalf("Faults() = %v, want %v", got, want)
		}
	})
}

// TestFaultsCountHoldReset checks that a connection reset by HoldTimeout
// counts as a hold_reset, not as a link's random reset.
func TestFaultsCountHoldReset(t *testing.T) {
	sim(t, simnet.Config{HoldTimeout: time.Second}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, _ := connect(t, n)
		n.Partition(hostA, hostB)
		if err := a.sink.Send([]byte("x")); err != nil {
			t.Fatalf("Send: %v", err)
		}
		ctx.Sleep(2 * time.Second)
		want := fault.Counts{"partition": 1, "cut": 2, "hold_reset": 1}
		if got := n.Faults(); !maps.Equal(got, want) {
			t.Fatalf("Faults() = %v, want %v", got, want)
		}
	})
}
