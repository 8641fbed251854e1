package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// plainModule copies testdata/plainmod, a module of plain Go that knows
// nothing of simrt, to a temporary directory, makes it the working
// directory and points simrt test at this checkout.
func plainModule(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the standard library with the plain-Go overlay (minutes when the build cache is cold)")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	entries, err := os.ReadDir("testdata/plainmod")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/plainmod", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("SIMRT_ROOT", repo)
	t.Chdir(dir)
}

// simrtTest runs `simrt test args...` and returns its output and exit code.
func simrtTest(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code := dispatch(append([]string{"test", "-count=1"}, args...), &out, &out)
	return out.String(), code
}

var orderLine = regexp.MustCompile(`order \[[0-9 ]+\]`)

func TestPlainGoSeeds(t *testing.T) {
	plainModule(t)
	out, code := simrtTest(t, "-v", "-run", "PingPong|Race|SelectDefault|LabelledBreak|Buffered|Semaphore|ManyChannels", "-simrt.seeds=0..29", ".")
	if code != 0 {
		t.Fatalf("simrt test failed (%d):\n%s", code, out)
	}
	for _, name := range []string{"TestPingPong", "TestRace", "TestSelectDefault", "TestLabelledBreak", "TestBuffered", "TestSemaphore", "TestManyChannels"} {
		if !strings.Contains(out, "--- PASS: "+name+"/seed=29") {
			t.Errorf("no passing seed 29 of %s:\n%s", name, out)
		}
	}
	orders := map[string]bool{}
	for _, o := range orderLine.FindAllString(out, -1) {
		orders[o] = true
	}
	if len(orders) < 3 {
		t.Errorf("30 seeds explored %d orders of the producers' values, want several:\n%v", len(orders), orders)
	}

	// golang.org/x/sync comes from the module cache, which an overlay
	// cannot replace: it is rewritten in a copy the modfile replaces it with.
	if !strings.Contains(out, "semaphore order [") {
		t.Errorf("TestSemaphore logged no order:\n%s", out)
	}

	// The same seed, twice: the same order.
	first, code := simrtTest(t, "-v", "-run", "^TestRace$", "-simrt.seed=7", ".")
	if code != 0 {
		t.Fatalf("seed 7 failed:\n%s", first)
	}
	second, _ := simrtTest(t, "-v", "-run", "^TestRace$", "-simrt.seed=7", ".")
	a, b := orderLine.FindString(first), orderLine.FindString(second)
	if a == "" || a != b {
		t.Errorf("seed 7 ran %q, then %q", a, b)
	}
}

func TestPlainGoDeadlock(t *testing.T) {
	plainModule(t)
	out, code := simrtTest(t, "-run", "^TestDeadlock$", "-simrt.seed=3", ".")
	if code == 0 {
		t.Fatalf("a deadlock passed:\n%s", out)
	}
	for _, want := range []string{
		"runtime stalled",
		"task <root> (#0) parked",
		"receive from chan at plain_test.go:61",
		`task "g1" (#1) parked`,
		"receive from chan at plain_test.go:58 (goroutine g1 started at plain_test.go:57)",
		"replay: simrt test -run '^TestDeadlock$' . -simrt.seed=3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	audit := regexp.MustCompile(`audit state: [0-9a-f]{8}`)
	again, _ := simrtTest(t, "-run", "^TestDeadlock$", "-simrt.seed=3", ".")
	if s := audit.FindString(out); s == "" || s != audit.FindString(again) {
		t.Errorf("seed 3 ended in %q, then %q", s, audit.FindString(again))
	}
}

func TestPlainGoLeak(t *testing.T) {
	plainModule(t)
	out, code := simrtTest(t, "-run", "^TestLeak$", "-simrt.seeds=0..2", ".")
	if code == 0 {
		t.Fatalf("a leak passed:\n%s", out)
	}
	for _, want := range []string{
		"the test's goroutines to end (plain-Go leak check)",
		`task "g1" (#1) parked`,
		"send on chan (replay the seed with -simrt.seed for where) (goroutine g1 started at plain_test.go:68)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	out, code = simrtTest(t, "-run", "^TestLeak$", "-simrt.seeds=0..2", ".", "-args", "-simrt.leaks=false")
	if code != 0 {
		t.Errorf("-simrt.leaks=false still failed:\n%s", out)
	}
}

// TestPlainGoOverlayForGoTest: simrt overlay prints the flags with which
// plain go test runs the same tests under the simulator.
func TestPlainGoOverlayForGoTest(t *testing.T) {
	plainModule(t)
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"overlay", "."}, &out, &errOut); code != 0 {
		t.Fatalf("simrt overlay failed (%d):\n%s", code, errOut.String())
	}
	flags := strings.Fields(out.String())
	for _, want := range []string{"-overlay=", "-tags=simrt_plain", "-vet=off", "-modfile="} {
		if !slices.ContainsFunc(flags, func(f string) bool { return strings.HasPrefix(f, want) }) {
			t.Errorf("simrt overlay printed %q, without %s", out.String(), want)
		}
	}
	cmd := exec.Command("go", append(append([]string{"test", "-count=1", "-v"}, flags...), ".", "-run", "^TestRace$", "-simrt.seeds=0..2")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "--- PASS: TestRace/seed=2") {
		t.Errorf("go test with the printed flags: %v\n%s", err, got)
	}
}
