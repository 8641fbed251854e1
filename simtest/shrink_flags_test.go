package simtest_test

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// planted is a flag of this package's own (go test ./simtest -args
// -planted=draws): the helpers below fail only when it is set.
var planted = flag.String("planted", "", "simtest's tests: the failure TestHelperShrinkNeedsFlag and TestHelperShrinkScheduleNeedsFlag plant")

func TestHelperShrinkNeedsFlag(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, shrinkConfig, func(t *testing.T, ctx *deterministic.Context) {
		if *planted == "draws" {
			plantedDraws(t, ctx)
		}
	})
}

func TestHelperShrinkScheduleNeedsFlag(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		if *planted == "lonely" {
			lonelyCluster(t, ctx)
		}
	})
}

// TestShrinkKeepsPackageFlags: the processes -simrt.shrink and
// -simrt.shrinkschedule start to rerun a seed get the package's own flags
// (here -planted, in both its forms). They got only simtest's and go
// test's, so a failure that needs the package's flag passed there: "passed:
// the failure depends on something outside the simulation", and a
// schedule that never shrank (-simrt.shrink shrinks the schedule first).
func TestShrinkKeepsPackageFlags(t *testing.T) {
	out := runHelper(t, "TestHelperShrinkNeedsFlag", "-simrt.shrink", "-simrt.shrinkout="+filepath.Join(t.TempDir(), "s.stream"), "-planted", "draws")
	if m := reShrunk.FindStringSubmatch(out); m == nil || m[2] != "panic: planted: draw # at step #" {
		t.Errorf("no shrink of the planted panic in:\n%s", out)
	}
	out = runHelper(t, "TestHelperShrinkScheduleNeedsFlag", "-simrt.shrink", "-simrt.seeds=0..99", "-simrt.parallel=1",
		"-simrt.shrinkout="+filepath.Join(t.TempDir(), "c.stream"), "-planted=lonely")
	m := reShrunk.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no shrink in:\n%s", out)
	}
	if from, to := atoi(m[3]), atoi(m[6]); to >= from {
		t.Errorf("the schedule did not shrink (from %d faults to %d):\n%s", from, to, out)
	}
}
