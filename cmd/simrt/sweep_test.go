package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	simsweep "github.com/simrt/simrt/sweep"
)

// The end-to-end tests run go test on testdata/sample, whose TestLeader
// fails on the seeds where task "c" wins a race.

func sweepOut(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"sweep", "./testdata/sample", "-run", "TestLeader"}, args...), &out, &errb)
	if e := errb.String(); e != "building ./testdata/sample\n" {
		t.Errorf("stderr is not a terminal, yet it has more than the build line (a progress bar?):\n%q", e)
	}
	return out.String(), code
}

var reFailing = regexp.MustCompile(`failing seeds: (\S+)`)

func failingSeeds(t *testing.T, out string) []uint64 {
	t.Helper()
	m := reFailing.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no failing seeds in:\n%s", out)
	}
	set, err := simsweep.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var list []uint64
	for s := range (simsweep.Shard{I: 0, N: 1}).Pick(set) {
		list = append(list, s)
	}
	return list
}

func TestSweepFindsFailuresAndShardsSplitThem(t *testing.T) {
	out, code := sweepOut(t, "-seeds", "0..39", "-parallel", "2")
	if code != 1 {
		t.Fatalf("exit code %d, want 1:\n%s", code, out)
	}
	if !strings.Contains(out, "swept 40 of 40 seeds") {
		t.Errorf("no summary of 40 seeds:\n%s", out)
	}
	all := failingSeeds(t, out)
	if len(all) == 0 || len(all) == 40 {
		t.Fatalf("failing seeds %v: want some, not all", all)
	}
	for _, s := range all {
		line := "FAIL seed " + itoa(s) + ": sample_test.go"
		if !strings.Contains(out, line) || !strings.Contains(out, "c became leader") {
			t.Errorf("seed %d is not reported as it fails (%q):\n%s", s, line, out)
		}
	}

	// Two shards find the same failures between them, each seed once.
	seen := map[uint64]int{}
	for _, shard := range []string{"0/2", "1/2"} {
		out, _ := sweepOut(t, "-seeds", "0..39", "-shard", shard, "-parallel", "2", "-chunk", "7")
		if !strings.Contains(out, "swept 20 of 20 seeds") {
			t.Errorf("shard %s did not sweep 20 seeds:\n%s", shard, out)
		}
		for _, s := range failingSeeds(t, out) {
			seen[s]++
		}
	}
	if len(seen) != len(all) {
		t.Errorf("shards found %d failing seeds, the whole sweep %d", len(seen), len(all))
	}
	for _, s := range all {
		if seen[s] != 1 {
			t.Errorf("seed %d found %d times across shards", s, seen[s])
		}
	}
}

func TestSweepPassingSeeds(t *testing.T) {
	out, code := sweepOut(t, "-seeds", "1,2,4,5,6")
	if code != 0 || !strings.Contains(out, "swept 5 of 5 seeds") || !strings.Contains(out, ": 0 failed") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestReplayReproducesAndWritesTrace(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "seed13.json")
	var out, errb bytes.Buffer
	code := dispatch([]string{"replay", "./testdata/sample", "-run", "TestLeader", "-seed", "13", "-trace", tr}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (seed 13 fails):\n%s\n%s", code, out.String(), errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"simrt: seed 13 failed at 2ms of simulated time",
		"c became leader",
		"audit state: ",
		"replay: go test -run '^TestLeader$' ./testdata/sample -simrt.seed=13",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("replay output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "seed=14") {
		t.Errorf("replay ran another seed:\n%s", text)
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &f); err != nil || len(f.TraceEvents) == 0 {
		t.Errorf("trace does not parse (%v) or is empty", err)
	}
}

// TestUsageErrors feeds each kind of bad input to sweep and replay: each
// exits 2 with one line of its own that names the problem.
func TestUsageErrors(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "name the package"},
		{[]string{"sweep", "./testdata/sample"}, "-run names the test to sweep"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-seeds", "9..1"}, "-seeds: "},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-shard", "2/2"}, "-shard: "},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-parallel", "0"}, "-parallel 0: at least 1"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-chunk", "-1"}, "-chunk -1:"},
		{[]string{"sweep", "./testdata/sample", "./other", "-run", "TestLeader"}, `unexpected argument "./other"`},
		{[]string{"sweep", "./testdata/sample", "-run", "TestNoSuchTest"}, "no test in ./testdata/sample matches -run TestNoSuchTest"},
		{[]string{"sweep", "./testdata/sample", "-run", "FuzzSample"}, "FuzzSample in ./testdata/sample is a fuzz target, not a test: sweep runs a test that calls simtest.Explore; fuzz it with go test -run '^$' -fuzz '^FuzzSample$' ./testdata/sample"},
		{[]string{"sweep", "./testdata/nosimtest", "-run", "TestPlain"}, "./testdata/nosimtest does not use simtest"},
		{[]string{"sweep", "./testdata/notests", "-run", "TestX"}, "./testdata/notests has no test files"},
		{[]string{"sweep", "./testdata/nosuchdir", "-run", "TestX"}, "go list ./testdata/nosuchdir"},
		{[]string{"replay", "./testdata/sample", "-run", "TestLeader"}, "-seed names the seed"},
		{[]string{"replay", "./testdata/sample", "-seed", "3"}, "-run names the test to replay"},
		{[]string{"replay", "./testdata/sample", "-run", "TestLeader", "-seed", "x"}, `-seed "x": a seed is a number`},
		{[]string{"replay", "./testdata/sample", "-run", "TestLeader", "-nosuchflag"}, "-nosuchflag"},
		{[]string{"replay", "./testdata/nosimtest", "-run", "TestPlain", "-seed", "1"}, "the tests of ./testdata/nosimtest do not use simtest"},
		{[]string{"replay", "./testdata/nosuchdir", "-run", "TestX", "-seed", "1"}, "simrt replay: go list ./testdata/nosuchdir"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-seeds", "0..3", "--", "-simrt.seeds=0..1"}, "simrt sweep: -simrt.seeds after --"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "--", "-v", "--simrt.seed", "4"}, "simrt sweep: -simrt.seed after --"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "--", "-simrt.shard=1/2"}, "simrt sweep: -simrt.shard after --"},
		{[]string{"sweep", "./testdata/sample", "-run", "TestLeader", "-seeds", "0..18446744073709551615"}, "all 2^64 seeds"},
		{[]string{"replay", "./testdata/sample", "-run", "TestLeader", "-seed", "1", "--", "-simrt.seed=2"}, "simrt replay: -simrt.seed after --"},
		{[]string{"replay", "./testdata/sample", "-run", "TestNope", "-seed", "1"}, "simrt replay: no test in ./testdata/sample matches -run TestNope"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(c.args, &out, &errb)
		msg := errb.String()
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, msg, c.want)
		}
		if c.args[len(c.args)-1] != "-nosuchflag" {
			if lines := strings.Count(strings.TrimPrefix(msg, "building "+c.args[min(1, len(c.args)-1)]+"\n"), "\n"); lines != 1 {
				t.Errorf("%v: %d lines, want one:\n%s", c.args, lines, msg)
			}
			if seen[msg] {
				t.Errorf("%v: the same message as another bad input: %q", c.args, msg)
			}
			seen[msg] = true
		}
	}
}

// TestNoSeedRanIsOneLine sweeps a test that does not call Explore: one
// line says so, once, and the exit code is 2.
func TestNoSeedRanIsOneLine(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "./testdata/sample", "-run", "TestNotExplore", "-seeds", "0..99", "-parallel", "2"}, &out, &errb)
	if code != 2 || strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "ran no seed: does -run TestNotExplore match a test that calls simtest.Explore?") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}

// TestHeadlineIsFirstErrorLine checks which line of a report heads a
// failure: the first line of the first message the test logged, what
// failed for a panic, the panic of a process that died.
func TestHeadlineIsFirstErrorLine(t *testing.T) {
	for _, c := range []struct {
		f    sweepFailure
		want string
	}{
		{sweepFailure{report: []string{
			"    x_test.go:10: got 3 replies",
			"        want 2",
			"    x_test.go:11: second error",
			"    run.go:162: simrt: seed 3 failed at 2ms of simulated time (1970-01-01T00:00:00.002Z) in task \"a\"",
			"        the test failed (t.Error) inside the simulation",
		}}, "x_test.go:10: got 3 replies (at 2ms)"},
		{sweepFailure{report: []string{
			"    run.go:162: simrt: seed 3 failed at 5s of simulated time (1970-01-01T00:00:05Z) in task \"n\"",
			"        panic: index out of range",
		}}, "panic: index out of range (at 5s)"},
		{sweepFailure{report: []string{
			"    run.go:162: simrt: seed 3 is not deterministic",
			"        first divergent event 17",
		}}, "first divergent event 17"},
		{sweepFailure{crashed: true, report: []string{
			"panic: concurrent map writes",
			"",
			"goroutine 7 [running]:",
		}}, "the test process died: panic: concurrent map writes"},
		{sweepFailure{report: []string{"    x_test.go:40: after the simulation"}}, "x_test.go:40: after the simulation"},
	} {
		if got := c.f.headline(); got != c.want {
			t.Errorf("headline %q, want %q", got, c.want)
		}
	}
}

// TestBarWithholdsRate checks the progress bar's rate: none in the first
// second, when one seed would show an absurd one.
func TestBarWithholdsRate(t *testing.T) {
	if got := rateText(1, 2*time.Millisecond); got != "" {
		t.Errorf("rate after 2ms: %q, want none", got)
	}
	if got := rateText(50, 2*time.Second); got != ", 25 seeds/s" {
		t.Errorf("rate after 2s: %q", got)
	}
}

// TestBarDrawsWhenAsked runs a sweep with the bar on (as on a terminal):
// it draws the count of seeds done.
func TestBarDrawsWhenAsked(t *testing.T) {
	var out, errb bytes.Buffer
	s := &sweep{pkg: "./testdata/sample", run: "^TestLeader$", runFlag: "TestLeader", seeds: simsweep.Set{{Lo: 1, Hi: 2}, {Lo: 4, Hi: 4}},
		parallel: 1, stdout: &out, stderr: &errb, events: &out}
	if code := s.exec(context.Background(), true); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if e := errb.String(); !strings.Contains(e, "sweep ./testdata/sample TestLeader") || !strings.Contains(e, "(3/3") {
		t.Errorf("no bar on stderr:\n%q", e)
	}
}

func TestParseArgsEitherOrder(t *testing.T) {
	for _, args := range [][]string{
		{"./p", "-run", "X", "--", "-v"},
		{"-run", "X", "./p", "--", "-v"},
	} {
		var out, errb bytes.Buffer
		fs := newFlagSetForTest(&errb)
		run := fs.String("run", "", "")
		pkg, rest, err := parseArgs(fs, args)
		if err != nil || pkg != "./p" || *run != "X" || len(rest) != 1 || rest[0] != "-v" {
			t.Errorf("%v: pkg %q run %q rest %v err %v", args, pkg, *run, rest, err)
		}
		_ = out
	}
}

func itoa(n uint64) string {
	return simsweep.Compact([]uint64{n}).String()
}

func newFlagSetForTest(w *bytes.Buffer) *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}

// TestCrashingSeedIsItsFailure sweeps a test whose process dies on some
// seeds: each such seed is a failure headed by the panic, and the seeds
// after it in its chunk still run.
func TestCrashingSeedIsItsFailure(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "./testdata/sample", "-run", "TestCrash", "-seeds", "0..19", "-parallel", "1", "-chunk", "20"}, &out, &errb)
	text := out.String()
	if code != 1 || !strings.Contains(text, "swept 20 of 20 seeds") {
		t.Fatalf("exit %d, want 1 and every seed run:\n%s\n%s", code, text, errb.String())
	}
	crashed := failingSeeds(t, text)
	if len(crashed) == 0 || len(crashed) == 20 {
		t.Fatalf("crashing seeds %v: want some, not all", crashed)
	}
	for _, s := range crashed {
		if want := "FAIL seed " + itoa(s) + ": the test process died: panic: boom in a native goroutine"; !strings.Contains(text, want) {
			t.Errorf("no %q:\n%s", want, text)
		}
	}
}

// TestExitingSeedIsItsFailure sweeps a test whose tasks call os.Exit(3)
// on some seeds: each such seed is a failure that says the process exited,
// with its replay command, and the seeds after it in its chunk still run.
func TestExitingSeedIsItsFailure(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "./testdata/sample", "-run", "TestExit", "-seeds", "0..19", "-parallel", "1", "-chunk", "20"}, &out, &errb)
	text := out.String()
	if code != 1 || !strings.Contains(text, "swept 20 of 20 seeds") {
		t.Fatalf("exit %d, want 1 and every seed run:\n%s\n%s", code, text, errb.String())
	}
	exited := failingSeeds(t, text)
	if len(exited) == 0 || len(exited) == 20 {
		t.Fatalf("exiting seeds %v: want some, not all", exited)
	}
	for _, s := range exited {
		for _, want := range []string{
			"FAIL seed " + itoa(s) + ": the test process exited while the seed ran (exit status 3): an os.Exit in the simulation?",
			"replay: simrt replay ./testdata/sample -run TestExit -seed " + itoa(s) + "\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("no %q:\n%s", want, text)
			}
		}
	}
}

// TestSweepReportsCoverage: the summary, as text and as JSON, counts the
// faults injected and the properties and Buggify sites reached, merged over
// the sweep's test processes.
func TestSweepReportsCoverage(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "./testdata/sample", "-run", "TestCovered", "-seeds", "0..9",
		"-parallel", "2", "-chunk", "3", "-json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit code %d, want 0:\n%s\n%s", code, out.String(), errb.String())
	}
	var r struct {
		SeedsDone  int               `json:"seeds_done"`
		Faults     map[string]uint64 `json:"faults"`
		Effects    map[string]uint64 `json:"effects"`
		Properties []propertyReport  `json:"properties"`
		Buggify    []buggifyReport   `json:"buggify"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("-json output: %v:\n%s", err, out.String())
	}
	if r.SeedsDone != 10 || r.Faults["partition"] != 10 || r.Faults["cut"] != 20 {
		t.Errorf("seeds_done %d, faults %v: want 10 seeds, partition 10, cut 20", r.SeedsDone, r.Faults)
	}
	if len(r.Effects) != 1 || r.Effects["dials_refused"] != 10 {
		t.Errorf("effects %v: want dials_refused 10", r.Effects)
	}
	if len(r.Properties) != 1 {
		t.Fatalf("properties %+v, want one", r.Properties)
	}
	p := r.Properties[0]
	if p.Kind != "Sometimes" || p.Message != "sample: heads" || !strings.HasPrefix(p.Site, "testdata/sample/sample_test.go:") ||
		p.SeedsReached != 10 || p.SeedsTrue == 0 || p.SeedsTrue+p.SeedsFalse < 10 {
		t.Errorf("property %+v: want Sometimes \"sample: heads\" in testdata/sample, reached in 10, true in some", p)
	}
	if len(r.Buggify) != 1 || r.Buggify[0].Name != "sample_site" || r.Buggify[0].SeedsReached != 10 {
		t.Errorf("buggify %+v: want sample_site reached in 10", r.Buggify)
	}

	var text bytes.Buffer
	code = dispatch([]string{"sweep", "./testdata/sample", "-run", "TestCovered", "-seeds", "0..9", "-parallel", "2", "-chunk", "3"}, &text, &errb)
	for _, want := range []string{"faults injected: cut 20, partition 10\n", "fault effects: dials_refused 10\n", "properties (1):\n",
		`Sometimes           "sample: heads" at testdata/sample/sample_test.go:`, ": reached in 10, true in ",
		"Buggify sites (1):\n", `"sample_site" at testdata/sample/sample_test.go:`} {
		if code != 0 || !strings.Contains(text.String(), want) {
			t.Errorf("exit %d; text summary lacks %q:\n%s", code, want, text.String())
		}
	}
}

// TestFailFastReportsUpToTheLowestFailure: with -failfast the summary
// counts the seeds up to the lowest failing one and that failure alone,
// for any -parallel, though the chunk that failed runs on to its end.
func TestFailFastReportsUpToTheLowestFailure(t *testing.T) {
	reSwept := regexp.MustCompile(`swept (\d+) of 40 seeds .*: (\d+) failed`)
	for _, parallel := range []string{"1", "3"} {
		out, code := sweepOut(t, "-seeds", "0..39", "-failfast", "-parallel", parallel, "-chunk", "8")
		m := reSwept.FindStringSubmatch(out)
		if code != 1 || m == nil {
			t.Fatalf("parallel %s: exit %d, want 1 and a summary:\n%s", parallel, code, out)
		}
		first := failingSeeds(t, out)
		if len(first) != 1 || m[2] != "1" || m[1] != itoa(first[0]+1) {
			t.Fatalf("parallel %s: swept %s, %s failed, failing %v; want the seeds up to the lowest failure and it alone:\n%s",
				parallel, m[1], m[2], first, out)
		}
	}
}

// TestSweepStrictFailsOnMissedGoals: the summary marks a Sometimes never
// true and lists the goals found in the source that no seed reached (as
// go test does); with -simrt.strict (or SIMRT_STRICT) they fail the sweep
// over all its seeds, though each test process ran only its chunk.
func TestSweepStrictFailsOnMissedGoals(t *testing.T) {
	args := []string{"sweep", "./testdata/sample", "-run", "TestGoals", "-seeds", "0..3", "-parallel", "2", "-chunk", "2"}
	var out, errb bytes.Buffer
	if code := dispatch(args, &out, &errb); code != 0 {
		t.Errorf("without strict: exit %d, want 0:\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{`"goals: never true" at testdata/sample/sample_test.go:`, "true in 0, false in 4  <- NEVER TRUE",
		`Reachable           "goals: never reached" at sample/sample_test.go:`, "  <- NEVER REACHED", "goals missed (-- -simrt.strict fails"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := dispatch(append(args, "-json", "--", "-simrt.strict"), &out, &errb); code != 1 {
		t.Errorf("-simrt.strict: exit %d, want 1:\n%s", code, out.String())
	}
	var r sweepReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("-json output: %v:\n%s", err, out.String())
	}
	if !r.StrictFailed || !slices.ContainsFunc(r.Unreached, func(u unreachedReport) bool { return u.Message == "goals: never reached" && u.Goal }) ||
		!slices.ContainsFunc(r.Missed, func(m string) bool { return strings.Contains(m, `"goals: never true"`) }) {
		t.Errorf("-json: strict_failed %v, unreached %+v, missed %q: want the missed goals", r.StrictFailed, r.Unreached, r.Missed)
	}
	t.Setenv("SIMRT_STRICT", "1")
	out.Reset()
	if code := dispatch(args, &out, &errb); code != 1 || !strings.Contains(out.String(), "(-simrt.strict fails the sweep)") {
		t.Errorf("SIMRT_STRICT=1: exit %d, want 1:\n%s", code, out.String())
	}
	t.Setenv("SIMRT_STRICT", "banana")
	errb.Reset()
	if code := dispatch(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "SIMRT_STRICT=banana: not a boolean") {
		t.Errorf("SIMRT_STRICT=banana: exit %d, want 2 naming the variable: %s", code, errb.String())
	}
}

// TestReplayCommandCarriesForwardedFlags: the replay line of a sweep run
// with test flags after -- (a schedule file) forwards them too: without
// them the seed alone makes another run.
func TestReplayCommandCarriesForwardedFlags(t *testing.T) {
	s := &sweep{pkg: "./p", runFlag: "TestX", extra: []string{"-simrt.schedule=a b.schedule", "-v"}}
	want := "simrt replay ./p -run TestX -seed 4 -trace seed4.json -- '-simrt.schedule=a b.schedule' -v"
	if got := s.replayCommand(4, true); got != want {
		t.Errorf("replayCommand = %q, want %q", got, want)
	}
}

// TestProcessFailingAfterItsSeedsFailsTheSweep: a test process whose seeds
// all pass but which fails afterwards (a check of the test after Explore,
// a TestMain leak check, a panic at exit: testdata/atexit) fails the sweep,
// exit code 1, and the sweep says what failed.
func TestProcessFailingAfterItsSeedsFailsTheSweep(t *testing.T) {
	for _, c := range []struct{ test, want string }{
		{"TestMainCheck", "leakcheck: found unexpected goroutines: [worker]"},
		{"TestAfterExplore", "atexit_test.go:39: leakcheck: 1 goroutine left after the sweep"},
		{"TestPanicAtExit", "panic: boom at exit"},
	} {
		var out, errb bytes.Buffer
		code := dispatch([]string{"sweep", "./testdata/atexit", "-run", c.test, "-seeds", "0..5", "-parallel", "2", "-chunk", "3"}, &out, &errb)
		text := out.String()
		if code != exitFailed || !strings.Contains(text, "failed after its seeds ran (exit status ") || !strings.Contains(text, c.want) ||
			!strings.Contains(text, "swept 6 of 6 seeds") || !strings.Contains(text, "2 test processes failed after their seeds ran") {
			t.Errorf("%s: exit %d, want %d, the failure (%q) and the count:\n%s%s", c.test, code, exitFailed, c.want, text, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"sweep", "./testdata/atexit", "-run", "TestMainCheck", "-seeds", "0..1", "-chunk", "2", "-json"}, &out, &errb); code != exitFailed {
		t.Errorf("-json: exit %d, want %d", code, exitFailed)
	}
	var r sweepReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.ExitFailures != 1 || r.Failed != 0 {
		t.Errorf("-json: exit_failures %d, failed %d (%v), want 1 and 0:\n%s", r.ExitFailures, r.Failed, err, out.String())
	}
}
