package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestHuntReportSameForAnyParallel: hunting a bug, the sweep reports the
// seeds up to the lowest failing one and nothing past it, so that its
// counts are the same with one worker as with four.
func TestHuntReportSameForAnyParallel(t *testing.T) {
	summary := func(parallel int) string {
		base := simConfig{Bugs: bugSet{bugNoTermCheck}, OutDir: t.TempDir()}
		rep := sweep(sweepConfig{base: base, seeds: []seedRange{{30, 49}}, parallel: parallel, stopAtFirst: true})
		if rep.err != nil {
			t.Fatal(rep.err)
		}
		var failing []uint64
		for _, f := range rep.failures {
			failing = append(failing, f.Seed)
		}
		return fmt.Sprintf("seeds %d, ops %d, crashes %d, faults %v, checked %d/%d, bad %d, failing %v",
			rep.seeds, rep.ops, rep.crashes, rep.faults, rep.checked, rep.checkOps, rep.bad, failing)
	}
	want := summary(1)
	for _, parallel := range []int{4, 3} {
		if got := summary(parallel); got != want {
			t.Errorf("parallel %d: %s\nparallel 1: %s", parallel, got, want)
		}
	}
	t.Log(want)
}

// TestSweepBadInput: a sweep that cannot start says why, and run exits
// with the usage code.
func TestSweepBadInput(t *testing.T) {
	rep := sweep(sweepConfig{seeds: []seedRange{{0, 3}}, parallel: 0})
	if rep.err == nil {
		t.Fatal("a sweep on 0 workers started")
	}
}

// TestSeedListsOverflowAndOverlap: all 2^64 seeds are refused (their
// count wrapped to 0, a sweep of nothing that passed), and overlapping
// ranges run each seed once.
func TestSeedListsOverflowAndOverlap(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-seeds", "0..18446744073709551615"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "all 2^64 seeds") {
		t.Errorf("-seeds 0..2^64-1: exit %d, stderr %q; want exit %d and a clear error", code, errb.String(), exitUsage)
	}
	got, err := parseSeeds("0..5,3..4")
	if want := []seedRange{{0, 5}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("parseSeeds(0..5,3..4) = %v, %v; want %v", got, err, want)
	}
}
