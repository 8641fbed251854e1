package simtest_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A stream replay's report prints a replay command that replays the same
// stream: the seed alone makes another run.
func TestReplayCommandKeepsStream(t *testing.T) {
	m := reFirst.FindStringSubmatch(runHelper(t, "TestHelperPanic", "-simrt.seeds=0..199"))
	if m == nil {
		t.Fatal("no failing seed in the sweep")
	}
	stream := filepath.Join(t.TempDir(), "f.stream")
	runHelper(t, "TestHelperPanic", "-simrt.seed="+m[1], "-simrt.record="+stream)
	out := runHelper(t, "TestHelperPanic", "-simrt.seed="+m[1], "-simrt.replay="+stream)
	lines := regexp.MustCompile(`replay: go test .*`).FindAllString(out, -1)
	if len(lines) == 0 {
		t.Fatalf("no replay command in:\n%s", out)
	}
	for _, l := range lines {
		if !strings.Contains(l, "-simrt.seed="+m[1]+" -simrt.replay="+stream) {
			t.Errorf("replay command %q does not replay %s", l, stream)
		}
	}
}

// -simrt.record keeps one seed's stream: with several seeds it is refused
// instead of keeping the last one's.
func TestRecordRefusesSeveralSeeds(t *testing.T) {
	stream := filepath.Join(t.TempDir(), "f.stream")
	out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..3", "-simrt.record="+stream)
	if !strings.Contains(out, "-simrt.record="+stream+" writes the stream of one seed, and 4 seeds are selected") {
		t.Errorf("several seeds with -simrt.record: no clear error in:\n%s", out)
	}
	if strings.Contains(out, "seed=0") {
		t.Errorf("seeds ran despite the refusal:\n%s", out)
	}
}

// A seed list of all 2^64 seeds is refused: its count wraps to 0.
func TestAllSeedsRefused(t *testing.T) {
	out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..18446744073709551615")
	if !strings.Contains(out, "all 2^64 seeds") {
		t.Errorf("no clear error for 0..2^64-1 in:\n%s", out)
	}
}
