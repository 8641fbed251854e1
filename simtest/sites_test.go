package simtest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

func TestScanSitesFindsConstantCalls(t *testing.T) {
	got := map[string]sourceSite{}
	for _, s := range scanSites(filepath.Join("testdata", "sites")) {
		if s.dynamic {
			continue
		}
		got[s.fn+" "+s.message] = s
	}
	want := map[string]string{ // function and message: file and first line
		"Always ledger: balance never negative": "sites/sites.go:18",
		"Sometimes an account emptied":          "sites/sites.go:19",
		"Reachable transfer ran":                "sites/sites.go:23",
		"Buggify slow_transfer":                 "sites/sites.go:25",
		"AlwaysOrUnreachable parenthesised":     "sites/sites.go:28",
		"Reachable dot import":                  "sites/dot.go:6",
		"Reachable in a test file":              "sites/sites_test.go:9",
		"Sometimes inner goal":                  "sites/inner/inner.go:8",
	}
	for key, at := range want {
		s, ok := got[key]
		if !ok {
			t.Errorf("scan did not find %s (%s)", key, at)
			continue
		}
		if where := fmt.Sprintf("%s:%d", s.file, s.from); !strings.HasSuffix(at, where) {
			t.Errorf("%s found at %s, want %s", key, where, at)
		}
		delete(got, key)
	}
	for key, s := range got {
		t.Errorf("scan found %s at %s:%d, which it should not (not a constant, excluded by a build tag, or an imported package's test)", key, s.file, s.from)
	}
}

func TestScanSitesMultiLineCallSpansItsLines(t *testing.T) {
	for _, s := range scanSites(filepath.Join("testdata", "sites")) {
		if s.message == "an account emptied" && (s.from != 19 || s.to != 22) {
			t.Errorf("the Sometimes call spans lines %d-%d, want 19-22", s.from, s.to)
		}
	}
}

// TestSummaryReportsSitesThatNeverRan: a property found in the source that
// no run reached is listed, and is a missed goal when its kind has one; a
// property that ran is matched to its source site and listed once.
func TestSummaryReportsSitesThatNeverRan(t *testing.T) {
	cov := &deterministic.Coverage{}
	var line int
	for seed := range uint64(3) {
		deterministic.New(deterministic.Config{Seed: seed, Buggify: deterministic.BuggifyConfig{Disabled: true}, Hooks: deterministic.Hooks{Coverage: cov}}).Start(func(ctx *deterministic.Context) {
			line = reachOnce(ctx)
		})
	}
	source := []sourceSite{
		{fn: "Reachable", kind: simrt.PropertyReachable, message: "ran", file: "simtest/sites_test.go", from: line - 1, to: line + 1},
		{fn: "Sometimes", kind: simrt.PropertySometimes, message: "never ran", file: "x/y.go", from: 7, to: 7},
		{fn: "Unreachable", kind: simrt.PropertyUnreachable, message: "never ran either", file: "x/y.go", from: 9, to: 9},
		{fn: "Buggify", message: "never called", file: "x/y.go", from: 11, to: 11},
	}
	lines, missed := coverageSummary(cov, source)
	var text []string
	for _, l := range lines {
		text = append(text, l.text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{
		`Reachable           "ran" at simtest/sites_test.go:` + fmt.Sprint(line) + `: reached in 3`,
		`Sometimes           "false" at simtest/sites_test.go:`,
		`reached in 3, true in 0  <- NEVER TRUE`,
		`Sometimes           "never ran" at x/y.go:7: never reached (found in the source)  <- NEVER REACHED`,
		`Unreachable         "never ran either" at x/y.go:9: never reached (found in the source)`,
		`Buggify             "never called" at x/y.go:11: never reached (found in the source)`,
		`Buggify             "held" at simtest/sites_test.go:`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("summary lacks %q:\n%s", want, all)
		}
	}
	if strings.Count(all, `"ran"`) != 1 {
		t.Errorf("the property that ran is listed %d times, want once:\n%s", strings.Count(all, `"ran"`), all)
	}
	if len(missed) != 4 { // "false", "never ran", "never called", "held" (never fired)
		t.Errorf("missed %d goals, want 4: %q", len(missed), missed)
	}
	for _, m := range missed {
		if strings.Contains(m, "never ran either") {
			t.Errorf("an Unreachable never reached is no missed goal: %q", m)
		}
	}
}

// reachOnce reaches three properties and a Buggify site, and returns the
// line of its Reachable.
func reachOnce(ctx *deterministic.Context) int {
	simrt.Sometimes(ctx, false, "false")
	simrt.Buggify(ctx, "held")
	_, _, line, _ := runtime.Caller(0)
	simrt.Reachable(ctx, "ran")
	return line + 1
}
