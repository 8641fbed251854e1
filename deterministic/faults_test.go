package deterministic_test

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// TestFaultsCountedPerRunAndSummed checks that Context.Faults counts the
// network and storage faults of a run, that a resumed run counts a crash,
// and that Coverage sums the runs' counts.
func TestFaultsCountedPerRunAndSummed(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	cov := &deterministic.Coverage{}
	var got []deterministic.FaultCount
	cp := deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Coverage: cov}}).StartAndRecover(func(ctx *deterministic.Context) {
		ctx.WithHost(a)
		ctx.WithHost(b)
		must(t, ctx.Network().Partition(a, b))
		must(t, ctx.Network().Clog(a, b))
		ctx.StorageFaultConfig().OpenRate = 1
		if _, _, err := ctx.Open("p", []byte("b")); err == nil {
			t.Errorf("Open with OpenRate 1: no error")
		}
		got = ctx.Faults()
	})
	want := []deterministic.FaultCount{{"clog", 1}, {"cut", 2}, {"partition", 1}, {"storage_open", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("first run: Faults() = %v, want %v", got, want)
	}
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		ctx.WithHost(a)
		ctx.WithHost(b) // a recovered run starts with a new network
		must(t, ctx.Network().Partition(a, b))
		got = ctx.Faults()
	})
	want = []deterministic.FaultCount{{"crash", 1}, {"cut", 2}, {"partition", 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("resumed run: Faults() = %v, want %v", got, want)
	}
	want = []deterministic.FaultCount{{"clog", 1}, {"crash", 1}, {"cut", 4}, {"partition", 2}, {"storage_open", 1}}
	if got := cov.Faults(); !slices.Equal(got, want) || cov.Runs() != 2 {
		t.Fatalf("Coverage: Faults() = %v over %d runs, want %v over 2", got, cov.Runs(), want)
	}
}
