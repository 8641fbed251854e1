package simnet_test

import (
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/suite"
)

// simulator runs each case as the root task of a fresh simulation.
var simulator = suite.Runtime{
	Simulated: true,
	Stalled:   deterministic.ErrStalled,
	TimedOut:  deterministic.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	},
}

// harness runs the suite on a fresh simnet per case, built by setup from
// the root context.
func harness(setup func(ctx simrt.Context) *simnet.Network) nettest.NewNetwork {
	return func(_ suite.T, ctx simrt.Context) simrt.Network { return setup(ctx) }
}

func TestConformance(t *testing.T) {
	nettest.Run(t, simulator, harness(func(ctx simrt.Context) *simnet.Network {
		return simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
	}))
}

// The link model at zero faults, but switched on (a partition elsewhere,
// a lossless, reset-free link that still draws for every send), changes no
// behaviour.
func TestConformanceLinkModelIdle(t *testing.T) {
	nettest.Run(t, simulator, harness(func(ctx simrt.Context) *simnet.Network {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		idleFaults(n)
		return n
	}))
}

// idleFaults configures faults that never fire on loopback traffic.
func idleFaults(n *simnet.Network) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	n.Host(a)
	n.Host(b)
	if err := n.Partition(a, b); err != nil {
		panic(err)
	}
	n.Clog(b, a)
	n.SetLink(a, b, simnet.Link{Latency: time.Second, Loss: 0.5})
	n.SetDefaultLink(simnet.Link{Loss: 1e-300, Reset: 1e-300})
}

// The conformance suite also passes with latency, jitter and bandwidth on
// every link: they delay bytes but never lose or reorder them.
func TestConformanceLinkModelSlow(t *testing.T) {
	nettest.Run(t, simulator, harness(func(ctx simrt.Context) *simnet.Network {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		n.SetDefaultLink(simnet.Link{Latency: time.Millisecond, Jitter: time.Millisecond, Bandwidth: 100 << 20, Loss: 0.01})
		return n
	}))
}

// The Dial cases of the suite, with a Dial that hangs on a clog (it waits
// for the release, which never comes).
func TestConformanceDial(t *testing.T) {
	nettest.RunDial(t, simulator, func(t suite.T, ctx simrt.Context) (simrt.Network, netip.AddrPort) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		far := netip.MustParseAddr("10.0.0.9")
		n.Host(simnet.Loopback)
		n.Host(far)
		if err := n.Clog(simnet.Loopback, far); err != nil {
			t.Fatal(err)
		}
		return n, netip.AddrPortFrom(far, 80)
	})
}

// The receive-memory cases, on a network with nettest's small budget.
func TestConformanceRecvMemory(t *testing.T) {
	nettest.RunRecvMemory(t, simulator, harness(func(ctx simrt.Context) *simnet.Network {
		return simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{MaxRecvMemory: nettest.BudgetRecvMemory})
	}))
}
