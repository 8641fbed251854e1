package simtest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFailingSeedAttrs: a failing seed's test carries the seed, replay and
// shrink commands as test attributes (T.Attr: "=== ATTR" under -v, "attr"
// events under -json), on the seed's own subtest under Explore.
func TestFailingSeedAttrs(t *testing.T) {
	out := runHelper(t, "TestHelperStall", "-test.v")
	for _, want := range []string{
		"=== ATTR  TestHelperStall simrt.seed 7\n",
		"=== ATTR  TestHelperStall simrt.replay go test -run '^TestHelperStall$' ./simtest -simrt.seed=7\n",
		"=== ATTR  TestHelperStall simrt.shrink go test -run '^TestHelperStall$' ./simtest -simrt.seed=7 -simrt.shrink\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out = runHelper(t, "TestHelperPanic", "-test.v", "-simrt.seeds=0..29", "-simrt.parallel=1")
	m := reFirst.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no failing seed in:\n%s", out)
	}
	seed := m[1]
	for _, want := range []string{
		"=== ATTR  TestHelperPanic/seed=" + seed + " simrt.seed " + seed + "\n",
		"=== ATTR  TestHelperPanic/seed=" + seed + " simrt.replay go test -run '^TestHelperPanic$' ./simtest -simrt.seed=" + seed + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "simrt.seed "); n != 1 {
		t.Errorf("%d seed attributes, want 1 (passing seeds carry none):\n%s", n, out)
	}
}

var reTraceWritten = regexp.MustCompile(`trace of seed 7 written to (\S+)`)

// TestArtifactsDir: with go test's -artifacts, a relative -simrt.trace is
// written in the test's artifact directory (T.ArtifactDir, under
// -outputdir), and so is a failing seed's nemesis schedule.
func TestArtifactsDir(t *testing.T) {
	dir := t.TempDir()
	out := runHelper(t, "TestHelperStall", "-test.artifacts", "-test.outputdir="+dir, "-simrt.trace=stall.json")
	m := reTraceWritten.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no trace written:\n%s", out)
	}
	// Under go test the directory is _artifacts/<package>/<test>/<random>;
	// a test binary run directly (as here) knows no package: _artifacts/<random>.
	base := filepath.Join(dir, "_artifacts") + string(filepath.Separator)
	if !strings.HasPrefix(m[1], base) || filepath.Base(m[1]) != "stall.json" {
		t.Errorf("trace written to %s, want stall.json under %s", m[1], base)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat("stall.json"); err == nil {
		os.Remove("stall.json")
		t.Error("the trace was written in the package directory too")
	}

	out = runHelper(t, "TestHelperNemesisFailure", "-test.artifacts", "-test.outputdir="+dir)
	s := reSchedule.FindStringSubmatch(out)
	if s == nil {
		t.Fatalf("no schedule file in:\n%s", out)
	}
	if !strings.HasPrefix(s[1], base) {
		t.Errorf("schedule written to %s, want it under %s", s[1], base)
	}
	if _, err := os.Stat(s[1]); err != nil {
		t.Error(err)
	}
}
