package deterministic_test

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
)

// TestFaultEffectsGatheredAndSummed checks that Context.FaultEffects lists
// the network's and the storage's effects by time, that it works after
// the run, and that Coverage sums their counts without changing Faults.
func TestFaultEffectsGatheredAndSummed(t *testing.T) {
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	cov := &deterministic.Coverage{}
	var ctx0 *deterministic.Context
	var during []string
	for range 2 {
		start(t, deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Coverage: cov}}), func(ctx *deterministic.Context) {
			ctx0 = ctx
			ca := ctx.WithHost(a)
			ctx.WithHost(b)
			must(t, ctx.Network().Partition(a, b))
			_, _, err := ca.Dial(netip.AddrPortFrom(b, 80))
			check(t, err != nil, "dial across the partition succeeded")
			ctx.Sleep(time.Second)
			ctx.SetDiskFault(faulty.DiskFault{Fail: true})
			_, _, err = ctx.Open("p", []byte("b"))
			check(t, err != nil, "open on a failed disk succeeded")
			ctx.SetDiskFault(faulty.DiskFault{})
			for _, e := range ctx.FaultEffects() {
				during = append(during, e.String())
			}
		})
	}
	want := []string{"partition 10.0.0.1 <-> 10.0.0.2 at 0s: 1 dials refused", "disk fail at 1s: 1 ops failed"}
	if !slices.Equal(during[:2], want) {
		t.Errorf("effects during the run %q, want %q", during[:2], want)
	}
	after := ctx0.FaultEffects() // after the run: the closing crash too
	if len(after) != 3 || after[2].Fault != "crash" || after[2].Source != "storage" ||
		after[2].String() != "crash at 1s: no effect (the crash that ends the run)" {
		t.Errorf("effects after the run: %v", after)
	}
	if got := after[0].Counts; !slices.Equal(got, []fault.Tally{{Counter: fault.DialsRefused, N: 1}}) {
		t.Errorf("partition counts %v", got)
	}
	wantSum := []fault.Tally{{Counter: fault.DialsRefused, N: 2}, {Counter: fault.OpsFailed, N: 2}}
	if got := cov.Effects(); !slices.Equal(got, wantSum) {
		t.Errorf("Coverage.Effects() = %v, want %v", got, wantSum)
	}
	for _, f := range cov.Faults() {
		if f.Kind == "dials_refused" || f.Kind == "ops_failed" || f.Kind[0] == 0 {
			t.Errorf("an effect total leaked into Coverage.Faults: %v", cov.Faults())
		}
	}
}
