package simtest_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
	"github.com/simrt/simrt/storage/faulty"
)

// TestHelperEffects fails after a partition refused a dial and a failed
// disk failed an open.
func TestHelperEffects(t *testing.T) {
	if !helper(t) {
		return
	}
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	simtest.Run(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		ca := ctx.WithHost(a)
		ctx.WithHost(b)
		if err := ctx.Network().Partition(a, b); err != nil {
			t.Fatal(err)
		}
		ca.Dial(netip.AddrPortFrom(b, 80))
		ctx.Sleep(time.Second)
		ctx.SetDiskFault(faulty.DiskFault{Fail: true})
		ctx.Open("p", []byte("b"))
		t.Error("planted failure")
	})
}

// TestFailureReportShowsFaultEffects: the report of a failing seed says
// what each fault did.
func TestFailureReportShowsFaultEffects(t *testing.T) {
	out := runHelper(t, "TestHelperEffects")
	var got []string
	for _, l := range strings.Split(out, "\n") {
		got = append(got, strings.TrimSpace(l))
	}
	want := []string{
		"fault effects, last 3 of 3 (what each fault did):",
		"network: partition 10.0.0.1 <-> 10.0.0.2 at 0s: 1 dials refused",
		"storage: disk fail at 1s: 1 ops failed",
		"storage: crash at 1s: no effect (the crash that ends the run)",
		"audit state:",
	}
	for i, l := range got {
		if l != want[0] {
			continue
		}
		for j, w := range want {
			if i+j >= len(got) || !strings.HasPrefix(got[i+j], w) {
				t.Fatalf("report line %d = %q, want %q, in:\n%s", j, got[i+j], w, out)
			}
		}
		return
	}
	t.Fatalf("report lacks %q in:\n%s", want[0], out)
}
