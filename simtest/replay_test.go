package simtest_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// runHelper runs the helper test name in a fresh copy of this test binary
// with the given flags and returns what it printed. The helper must fail.
func runHelper(t *testing.T, name string, flags ...string) string {
	t.Helper()
	args := append([]string{"-test.run=^" + name + "$", "-test.count=1"}, flags...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SIMTEST_HELPER="+name)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s %v passed; want a failure:\n%s", name, flags, out)
	}
	return string(out)
}

var (
	reFailure = regexp.MustCompile(`simrt: seed (\d+) failed at (\S+) of simulated time \S+ in task "([^"]*)"`)
	reState   = regexp.MustCompile(`audit state: ([0-9a-f]{8})`)
	reFirst   = regexp.MustCompile(`first failing seed (\d+); replay: (.*)`)
)

// report is what a failure report says about one seed.
type report struct{ seed, time, task, what, state string }

func parseReport(t *testing.T, out, seed string) report {
	t.Helper()
	for _, block := range strings.Split(out, "simrt: seed ")[1:] {
		block = "simrt: seed " + block
		m := reFailure.FindStringSubmatch(block)
		if m == nil || m[1] != seed {
			continue
		}
		s := reState.FindStringSubmatch(block)
		if s == nil {
			t.Fatalf("report of seed %s has no audit state:\n%s", seed, block)
		}
		lines := strings.Split(block, "\n")
		return report{seed: m[1], time: m[2], task: m[3], what: strings.TrimSpace(lines[1]), state: s[1]}
	}
	t.Fatalf("no report for seed %s in:\n%s", seed, out)
	return report{}
}

func TestFailingSeedReplays(t *testing.T) {
	for _, helper := range []string{"TestHelperPanic", "TestHelperFatal"} {
		t.Run(helper, func(t *testing.T) {
			sweep := runHelper(t, helper, "-simrt.seeds=0..199", "-simrt.parallel=2", "-simrt.events=20")
			m := reFirst.FindStringSubmatch(sweep)
			if m == nil {
				t.Fatalf("no first failing seed in:\n%s", sweep)
			}
			seed, command := m[1], m[2]
			if want := "-simrt.seed=" + seed; !strings.Contains(command, want) || !strings.Contains(command, "^"+helper+"$") {
				t.Errorf("replay command %q does not name the test and %s", command, want)
			}
			found := parseReport(t, sweep, seed)

			replay := runHelper(t, helper, "-simrt.seed="+seed)
			again := parseReport(t, replay, seed)
			if again != found {
				t.Errorf("replay of seed %s differs:\n sweep:  %+v\n replay: %+v", seed, found, again)
			}
			if strings.Count(replay, "simrt: seed ") != 1 {
				t.Errorf("replay ran more than the one seed:\n%s", replay)
			}
		})
	}
}

func TestSweepReportWithoutEvents(t *testing.T) {
	out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..9")
	// A sweep keeps no event log by default; a panic still names its task,
	// time and stack.
	if !strings.Contains(out, `in task "b"`) || !strings.Contains(out, "panic: b became leader before a") ||
		strings.Contains(out, "last 20") {
		t.Errorf("sweep report:\n%s", out)
	}
}

func TestStallReport(t *testing.T) {
	out := runHelper(t, "TestHelperStall")
	r := parseReport(t, out, "7")
	if !strings.HasPrefix(r.what, "runtime stalled") || r.task != "waiter" || r.time != "1ms" {
		t.Errorf("report = %+v", r)
	}
	// The verdict lists every parked task and what it waits on.
	for _, want := range []string{
		`task <root> (#0) parked 2ms, since 1970-01-01T00:00:00Z: Await task "waiter"`,
		`task "waiter" (#1) parked 1ms, since 1970-01-01T00:00:00.001Z: receive on chan made at helper_test.go:`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stall report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "replay: go test -run '^TestHelperStall$' ./simtest -simrt.seed=7") {
		t.Errorf("no replay command in:\n%s", out)
	}
}

// TestLivelockReport: a livelock verdict is reported as a stall is: the
// verdict, the tasks that kept running, every live task, the seed and the
// replay command.
func TestLivelockReport(t *testing.T) {
	out := runHelper(t, "TestHelperLivelock")
	r := parseReport(t, out, "7")
	if !strings.HasPrefix(r.what, "runtime livelock: 1000 resumes without simulated time advancing or a task ending") {
		t.Errorf("report = %+v", r)
	}
	for _, want := range []string{
		`task "pinger" (#1): resumed `, `task "ponger" (#2): resumed `,
		"unbuffered chan made at helper_test.go:",
		"task <root> (#0) parked 1ms, since 2262-04-11T23:47:16.853775807Z: sleep until the end of simulated time (never)",
		"replay: go test -run '^TestHelperLivelock$' ./simtest -simrt.seed=7",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("livelock report lacks %q:\n%s", want, out)
		}
	}
}

func TestKeepGoingReportsEveryFailure(t *testing.T) {
	out := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..29", "-simrt.keepgoing", "-simrt.parallel=2")
	m := regexp.MustCompile(`(\d+) of (\d+) seeds run failed`).FindStringSubmatch(out)
	if m == nil || m[2] != "30" {
		t.Fatalf("keepgoing did not run all 30 seeds:\n%s", out)
	}
	if got := strings.Count(out, "--- FAIL: TestHelperPanic/seed="); got != atoi(m[1]) {
		t.Errorf("%d failing subtests, summary says %s", got, m[1])
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestCheckDeterminismFlagCatchesMapOrder(t *testing.T) {
	out := runHelper(t, "TestHelperMapOrder", "-simrt.seeds=0..1", "-simrt.checkdeterminism")
	for _, want := range []string{"simrt: seed 0 is not deterministic", "first divergent event: #", "kind spawn", "iteration over a Go map"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A t.Error from a task is reported where it was called (time and task),
// not at the end of the run; the event tail is rendered with names and
// marks the failing task's events; the seed's log is in the report.
func TestErrorReportLocatesTheCall(t *testing.T) {
	out := runHelper(t, "TestHelperError")
	r := parseReport(t, out, "7")
	if r.task != "checker" || r.time != "3ms" {
		t.Errorf("report = %+v; want task checker at 3ms (the run ends at 11ms)", r)
	}
	for _, want := range []string{
		`the test was first marked failed (t.Error, t.Fatal, t.Fail) at 3ms of simulated time in task "checker"`,
		`events before the failure ('>': task "checker")`,
		`> #5 +3ms resume task #1 "checker"`, `  #1 +0s <root>: spawn task #1 "checker"`,
		`log, last 2 of 2 records:`,
		`time=1970-01-01T00:00:00.000Z level=INFO msg="root waits" seed=7 task=root`,
		`time=1970-01-01T00:00:00.003Z level=INFO msg=checking seed=7 task=checker want=42`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "process_task") {
		t.Errorf("event tail shows raw event kinds:\n%s", out)
	}
}

// A passing simulation's log is not printed.
func TestPassingSeedLogsNothing(t *testing.T) {
	out := runHelper(t, "TestHelperQuietLogs")
	if !strings.Contains(out, "failed after the simulation") || strings.Contains(out, "hush") {
		t.Errorf("output:\n%s", out)
	}
}

// A t.Fatal from a task is reported at the resume that called it, not as
// "the last to run".
func TestFatalReportLocatesTheCall(t *testing.T) {
	out := runHelper(t, "TestHelperFatal", "-simrt.seeds=0..199", "-simrt.parallel=1", "-simrt.events=20")
	m := reFirst.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no first failing seed in:\n%s", out)
	}
	r := parseReport(t, out, m[1])
	if r.task != "checker" || r.time != "3ms" {
		t.Errorf("report = %+v; want task checker at 3ms", r)
	}
	if !strings.Contains(out, `first marked failed (t.Error, t.Fatal, t.Fail) at 3ms of simulated time in task "checker"`) ||
		strings.Contains(out, "the last to run") {
		t.Errorf("report does not locate the t.Fatal:\n%s", out)
	}
}

// TestNativeBlockFailsItsSeed: a task blocked on a native channel fails its
// seed with the watchdog's verdict (the task, its own frame, the seed and
// the replay command), and the sweep's other seeds and the package's next
// test still run. Before, the watchdog killed the test binary.
func TestNativeBlockFailsItsSeed(t *testing.T) {
	out := runHelper(t, "TestHelperNativeBlock", "-test.v", "-simrt.seeds=0..3", "-simrt.keepgoing", "-simrt.parallel=1")
	if m := reFailure.FindStringSubmatch(out); m == nil || m[1] != "2" || m[3] != "stuck" {
		t.Errorf("no report of seed 2 failing in task \"stuck\" (%q):\n%s", m, out)
	}
	for _, want := range []string{
		"task blocked in a native Go call: task \"stuck\"",
		"audit state: unknown (the run was abandoned)",
		`task "stuck" has not parked for`,
		"stack of task \"stuck\" (its own frames):",
		"github.com/simrt/simrt/simtest_test.TestHelperNativeBlock.func",
		"helper_test.go:",
		"replay: go test -run '^TestHelperNativeBlock$/^sweep$' ./simtest -simrt.seed=2",
		"--- FAIL: TestHelperNativeBlock/sweep/seed=2",
		"--- PASS: TestHelperNativeBlock/sweep/seed=3",
		"--- PASS: TestHelperNativeBlock/next",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\ngoroutine ") > 0 {
		t.Errorf("the output dumps goroutines:\n%.3000s", out)
	}
}
