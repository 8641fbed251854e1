package simtest_test

import (
	"regexp"
	"testing"
)

// TestExploreReportSameForAnyParallel: stopping at the first failure,
// Explore's verdict names the lowest failing seed and counts the seeds up
// to it, with one worker as with four (workers that were running seeds
// past it finish them, but they are not counted: the verdict only says how
// many, a number that depends on the timing, left out of the comparison).
func TestExploreReportSameForAnyParallel(t *testing.T) {
	verdict := regexp.MustCompile(`simrt: \d+ of \d+ seeds run failed \(of \d+ selected\): [^\n]*\n\s*first failing seed [^\n]*`)
	beside := regexp.MustCompile(`; \d+ more seeds?, running beside them, failed too \([^)]*\)`)
	var want string
	for _, parallel := range []string{"1", "4", "4"} {
		out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..199", "-simrt.parallel="+parallel)
		got := regexp.MustCompile(`\s+`).ReplaceAllString(beside.ReplaceAllString(verdict.FindString(out), ""), " ")
		if got == "" {
			t.Fatalf("parallel %s: no verdict in:\n%s", parallel, out)
		}
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("parallel %s: %q\nparallel 1: %q", parallel, got, want)
		}
	}
	if !regexp.MustCompile(`^simrt: 1 of \d+ seeds run failed \(of 200 selected\)`).MatchString(want) {
		t.Errorf("verdict %q: want 1 failure, the lowest", want)
	}
}
