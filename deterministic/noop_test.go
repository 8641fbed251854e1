package deterministic_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// TestForgottenWithHostPartitionIsError is the trap of issue 14: two
// servers listen on 10.0.0.1 and 10.0.0.2, but the test forgot WithHost,
// so each dials from 127.0.0.1 and a partition between the two addresses
// would cut nothing. The partition is an error that says to use WithHost;
// with WithHost it is accepted and cuts the dial.
func TestForgottenWithHostPartitionIsError(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	start(t, deterministic.New(deterministic.Config{Seed: 1}), func(ctx *deterministic.Context) {
		_, err := ctx.Bind(netip.AddrPortFrom(a, 80))
		must(t, err)
		lb, err := ctx.Bind(netip.AddrPortFrom(b, 80))
		must(t, err)
		_, _, err = ctx.Dial(lb.Addr()) // "from a", but from 127.0.0.1
		must(t, err)
		err = ctx.Network().Partition(a, b)
		check(t, errors.Is(err, simnet.ErrNoEffect), "Partition of listener addresses:", err)
		check(t, strings.Contains(err.Error(), "10.0.0.1") && strings.Contains(err.Error(), "10.0.0.2") &&
			strings.Contains(err.Error(), "WithHost"), "error text:", err)
		check(t, len(ctx.Faults()) == 0, "faults counted:", ctx.Faults())

		ca := ctx.WithHost(a) // declares 10.0.0.1
		must(t, ctx.Network().Partition(a, b))
		_, _, err = ca.Dial(lb.Addr())
		check(t, errors.Is(err, simrt.ErrConnectionFailed), "dial across the partition:", err)
	})
}

// TestWithHostDeclaresBeforeUse: a fault may name hosts given to WithHost
// before they bind or dial anything.
func TestWithHostDeclaresBeforeUse(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	start(t, deterministic.New(deterministic.Config{Seed: 1}), func(ctx *deterministic.Context) {
		ctx.WithHost(a)
		ctx.WithHost(b)
		must(t, ctx.Network().Partition(a, b))
		must(t, ctx.Network().Clog(a, b))
		must(t, ctx.Network().Isolate(a))
	})
}
