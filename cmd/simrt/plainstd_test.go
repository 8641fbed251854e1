package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPlainStdEndToEnd runs the plain-Go module testdata/plainstd (sync.Mutex
// in a struct, WaitGroup, Cond, time.Sleep, context.WithTimeout,
// time.AfterFunc, Ticker, Timer.Stop, math/rand/v2, unchanged) through
// `simrt test` on four seeds, twice. Every test passes, Sleep(100ms) measures
// exactly 100 ms of simulated time (TestSleepIsExact; natively it would
// measure more), one seed gives the same transfer order in both runs, and
// the seeds do not all give one order. The first build of the overlaid
// standard library takes minutes, so it runs without -short only.
func TestPlainStdEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the overlaid standard library (minutes cold); run without -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SIMRT_ROOT", root)
	t.Chdir(filepath.Join("testdata", "plainstd"))
	run := func() string {
		var out, errOut bytes.Buffer
		if code := runPlainTest([]string{"-simrt.seeds=0..3", "-v", "-count=1", "."}, &out, &errOut); code != 0 {
			t.Fatalf("simrt test exited %d:\n%s\n%s", code, out.String(), errOut.String())
		}
		return out.String()
	}
	first, second := run(), run()
	for _, test := range []string{"TestBankMutexInStruct", "TestSleepIsExact", "TestCond", "TestContextTimeout", "TestAfterFuncAndTicker"} {
		for _, seed := range []string{"0", "1", "2", "3"} {
			if want := "--- PASS: " + test + "/seed=" + seed + " "; !strings.Contains(first, want) {
				t.Errorf("no %q in:\n%s", want, first)
			}
		}
	}
	orders := regexp.MustCompile(`order \[.*\]`)
	a, b := orders.FindAllString(first, -1), orders.FindAllString(second, -1)
	if len(a) != 4 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("transfer orders differ between two runs of seeds 0..3:\n%s\n--\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	distinct := map[string]bool{}
	for _, o := range a {
		distinct[o] = true
	}
	if len(distinct) < 2 {
		t.Errorf("four seeds gave one transfer order: %v", a)
	}
}

// TestPlainStdStallReport runs testdata/plainstd/stall, a plain-Go test
// that deadlocks on purpose (a goroutine waits for a sync.Mutex its test
// holds, the test waits on a WaitGroup for that goroutine), and checks that
// the failing seed's report says what each waits on: the WaitGroup with
// its counter, the Mutex with its holder. Without -short only, as above.
func TestPlainStdStallReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the overlaid standard library (minutes cold); run without -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SIMRT_ROOT", root)
	t.Chdir(filepath.Join("testdata", "plainstd", "stall"))
	var out, errOut bytes.Buffer
	if code := runPlainTest([]string{"-simrt.seeds=0..1", "-count=1", "."}, &out, &errOut); code == 0 {
		t.Fatalf("the deadlocking test passed:\n%s", out.String())
	}
	for _, want := range []string{
		"runtime stalled: no task can make progress",
		`task <root> (#0) parked 0s, since 1970-01-01T00:00:00Z: sync.WaitGroup.Wait (counter 1)`,
		`task "g1" (#1) parked 0s, since 1970-01-01T00:00:00Z: sync.Mutex.Lock (held by task <root>)`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
