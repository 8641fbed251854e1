package metered_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/suite"
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
		return metered.New(n, prometheus.NewRegistry())
	})
}

// Successful accepts, dials, sends and receives count; failures do not.
// Two wrappers on one registry share the counters.
func TestCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		sim := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		n := metered.New(sim, reg)
		other := metered.New(sim.Host(netip.MustParseAddr("10.0.0.1")), reg)
		l, _ := n.Bind(netip.MustParseAddrPort("127.0.0.1:5000"))
		n.Dial(netip.MustParseAddrPort("127.0.0.1:1")) // fails, not counted
		si, st, _ := other.Dial(l.Addr())
		_, psi, pst, _ := l.Accept()
		si.Send([]byte("hello"), []byte("!"))
		pst.Recv(6)
		psi.Send([]byte("ok"))
		st.Recv(2)
		m := n.Metrics()
		for _, c := range []struct {
			name string
			c    prometheus.Counter
			want float64
		}{
			{"inbound connections", m.InboundConnections, 1},
			{"outbound connections", m.OutboundConnections, 1},
			{"inbound bandwidth", m.InboundBandwidth, 8},
			{"outbound bandwidth", m.OutboundBandwidth, 8},
		} {
			if got := value(c.c); got != c.want {
				t.Errorf("%s = %v, want %v", c.name, got, c.want)
			}
		}
	})
}

func value(c prometheus.Counter) float64 { return testutil.ToFloat64(c) }

// NewMetrics registers one collector; a second call on the same registry
// returns the first one's counters, and WithMetrics refuses nil.
func TestNewMetricsShares(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, b := metered.NewMetrics(reg), metered.NewMetrics(reg)
	if a != b {
		t.Fatal("second NewMetrics on one registry did not return the first's counters")
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 4 {
		t.Fatalf("registry holds %d series (err %v), want 4", n, err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nil Metrics") {
			t.Fatalf("WithMetrics(nil) panicked with %v", r)
		}
	}()
	metered.WithMetrics(nil, nil)
}
