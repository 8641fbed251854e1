package simtest_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// TestHelperGoalMissed sweeps a Sometimes that is never true and a Buggify
// site that never fires.
func TestHelperGoalMissed(t *testing.T) {
	if !helper(t) {
		return
	}
	cfg := deterministic.Config{Buggify: deterministic.BuggifyConfig{Disabled: true}}
	simtest.Explore(t, cfg, func(t *testing.T, ctx *deterministic.Context) {
		n := ctx.Rand().IntN(10)
		simrt.Always(ctx, n < 10, "helper: draw below ten")
		simrt.Sometimes(ctx, n > 10, "helper: draw above ten")
		simrt.Buggify(ctx, "helper_site")
	})
}

// TestHelperAlwaysFails sweeps an Always that fails on some seeds.
func TestHelperAlwaysFails(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		n := ctx.Rand().IntN(4)
		simrt.Always(ctx, n != 3, "helper: never draws three", "n", n)
	})
}

// runHelperStatus runs a helper test and returns its output and whether it
// passed.
func runHelperStatus(t *testing.T, name string, flags ...string) (string, bool) {
	t.Helper()
	args := append([]string{"-test.run=^" + name + "$", "-test.count=1", "-test.v"}, flags...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SIMTEST_HELPER="+name, "SIMRT_STRICT=")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestMissedGoalIsReported: a Sometimes never true and a Buggify site that
// never fired are listed in the sweep's summary; the sweep passes, and
// fails with -simrt.strict (and SIMRT_STRICT).
func TestMissedGoalIsReported(t *testing.T) {
	out, ok := runHelperStatus(t, "TestHelperGoalMissed", "-simrt.seeds=0..19")
	if !ok {
		t.Fatalf("the sweep failed without -simrt.strict:\n%s", out)
	}
	for _, want := range []string{
		"simrt: properties and Buggify sites over 20 runs (seeds):",
		`Always              "helper: draw below ten" at simtest/properties_test.go:`,
		`reached in 20, failed in 0`,
		`Sometimes           "helper: draw above ten" at simtest/properties_test.go:`,
		`reached in 20, true in 0  <- NEVER TRUE`,
		`Buggify             "helper_site" at simtest/properties_test.go:`,
		`reached in 20, enabled in 0, fired in 0 (0 of 20 calls)  <- NEVER FIRED`,
		"(-simrt.strict fails the sweep on them)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, strict := range [][]string{{"-simrt.strict"}, {"-simrt.strict=true"}} {
		out, ok := runHelperStatus(t, "TestHelperGoalMissed", append(strict, "-simrt.seeds=0..19")...)
		if ok {
			t.Fatalf("%v: the sweep passed:\n%s", strict, out)
		}
		for _, want := range []string{"goals missed (-simrt.strict):",
			`Sometimes "helper: draw above ten" at simtest/properties_test.go:`, `Buggify "helper_site" at`} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", strict, want, out)
			}
		}
	}
	// A replay of one seed sees too little to judge.
	if out, ok := runHelperStatus(t, "TestHelperGoalMissed", "-simrt.strict", "-simrt.seed=3"); !ok ||
		!strings.Contains(out, "not judged: this sweep ran only part of the seeds") {
		t.Errorf("a strict replay of one seed failed or did not say it was not judged (passed %v):\n%s", ok, out)
	}
}

var reProperty = regexp.MustCompile(`simrt: Always "helper: never draws three" failed at simtest/properties_test.go:\d+ \(seed (\d+), position \d+, task <root>, [^)]*\): n=3`)

// TestFailedAlwaysFailsTheSeed: an Always that fails on a seed fails the
// sweep with a report naming the property, the seed and its replay command,
// and the summary counts the failure.
func TestFailedAlwaysFailsTheSeed(t *testing.T) {
	out, ok := runHelperStatus(t, "TestHelperAlwaysFails", "-simrt.seeds=0..19", "-simrt.keepgoing")
	if ok {
		t.Fatalf("the sweep passed:\n%s", out)
	}
	m := reProperty.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no property failure in the output:\n%s", out)
	}
	for _, want := range []string{"replay: go test -run '^TestHelperAlwaysFails$' ./simtest -simrt.seed=" + m[1] + "\n",
		`Always              "helper: never draws three" at simtest/properties_test.go:`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`reached in 20, failed in [1-9]`).MatchString(out) {
		t.Errorf("the summary does not count the failures:\n%s", out)
	}
}
