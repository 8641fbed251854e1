package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShrinkCommand shrinks a failing seed of the sample, exiting 0 (a
// successful shrink), then runs the replay command it printed, as
// printed: the same failure.
func TestShrinkCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "leader.stream")
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"shrink", "./testdata/sample", "-run", "TestLeader", "-seed", "13", "-o", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d, want 0 (seed 13 fails and shrinks):\n%s\n%s", code, stdout.String(), stderr.String())
	}
	text := stdout.String()
	m := regexp.MustCompile(`simrt: shrank seed 13 \(the test failed \(t.FailNow, t.Fatal\) inside the simulation in task "<root>"\) ` +
		`from 0 faults and ([\d,]+) decisions \(([\d,]+) not the default\) to 0 and ([\d,]+) \(([\d,]+)\)[^\n]*\n\s*replay: (.*)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no shrink result in:\n%s", text)
	}
	if k, j := atoi(t, strings.ReplaceAll(m[2], ",", "")), atoi(t, strings.ReplaceAll(m[4], ",", "")); j >= k {
		t.Errorf("non-default decisions did not go down: %s to %s", m[2], m[4])
	}
	want := "go test -run '^TestLeader$' ./testdata/sample -simrt.seed=13 -simrt.replay=" + out
	if m[5] != want {
		t.Fatalf("replay command %q, want %q", m[5], want)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(strings.ReplaceAll(m[5], "'", ""))
	cmd := exec.Command(args[0], append([]string{args[1], "-count=1"}, args[2:]...)...)
	replay, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(replay), "c became leader") {
		t.Errorf("the printed command (%v) did not fail the same way:\n%s", err, replay)
	}
}

// TestShrinkCommandFails: a seed that fails but cannot be shrunk (here the
// result cannot be saved: -o names a path under a regular file) exits 1
// with a one-line error after the test's output.
func TestShrinkCommandFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"shrink", "./testdata/sample", "-run", "TestLeader", "-seed", "13", "-o", filepath.Join(file, "x.stream")}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (the shrink could not save its result):\n%s\n%s", code, stdout.String(), stderr.String())
	}
	want := "simrt shrink: seed 13 of TestLeader failed, but the shrink did not finish (the test's output above says why)\n"
	if !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr does not end with %q:\n%s", want, stderr.String())
	}
	if !strings.Contains(stdout.String(), "simrt: shrink: ") {
		t.Errorf("the test's output lacks the shrink's error:\n%s", stdout.String())
	}
}

// TestInevitableCommand: a search that finds its decision exits 0.
func TestInevitableCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"inevitable", "./testdata/sample", "-run", "TestLeader", "-seed", "13", "-n", "5"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d, want 0:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"simrt: seed 13 (", ") became inevitable at decision #", "decisions around it:", "events of the run around it: "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestShrinkUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"shrink", "./testdata/sample", "-seed", "3"}, "simrt shrink: -run names the failing test"},
		{[]string{"shrink", "./testdata/sample", "-run", "TestLeader"}, "simrt shrink: -seed names the failing seed"},
		{[]string{"shrink", "./testdata/sample", "-run", "TestLeader", "-seed", "3", "-runs", "0"}, "-runs 0: want at least 1"},
		{[]string{"inevitable", "./testdata/sample", "-run", "TestLeader", "-seed", "3", "-rate", "2"}, "-rate 2: want a fraction"},
		{[]string{"inevitable", "./testdata/nosimtest", "-run", "TestPlain", "-seed", "1"}, "do not use simtest"},
		{[]string{"shrink", "./testdata/sample", "-run", "TestCovered", "-seed", "1"}, "seed 1 of TestCovered passed: there is no failure to work on"},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(c.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
