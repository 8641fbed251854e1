package simtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/simtest"
)

// TestHelperBadArgs calls simtest with the bad argument SIMTEST_BADARG
// names.
func TestHelperBadArgs(t *testing.T) {
	if !helper(t) {
		return
	}
	root := func(t *testing.T, ctx *deterministic.Context) {}
	bad := deterministic.Config{Buggify: deterministic.BuggifyConfig{FireProbability: 2}}
	switch os.Getenv("SIMTEST_BADARG") {
	case "explore-nil":
		simtest.Explore(t, deterministic.Config{}, nil)
	case "branch-nil":
		simtest.Branch(t, deterministic.Config{}, nil, simtest.BranchOptions{})
	case "branch-runs":
		simtest.Branch(t, deterministic.Config{}, root, simtest.BranchOptions{Runs: -5})
	case "run-config":
		simtest.Run(t, bad, root)
	case "explore-config":
		simtest.Explore(t, bad, root)
	}
}

// TestBadArgumentsFailAtTheCall: a nil root, a negative budget or an
// invalid Config fails the test with one line naming the argument, before
// any seed runs: no crash, no failing seed, no replay command.
func TestBadArgumentsFailAtTheCall(t *testing.T) {
	for arg, want := range map[string]string{ // each case is independent
		"explore-nil":    "simtest.Explore: nil root function",
		"branch-nil":     "simtest.Branch: nil root function",
		"branch-runs":    "simtest.Branch: BranchOptions.Runs -5: a budget of runs is not negative",
		"run-config":     "simtest.Run: invalid deterministic.Config: deterministic.New: Config.Buggify.FireProbability must be in [0, 1]",
		"explore-config": "simtest.Explore: invalid deterministic.Config: deterministic.New: Config.Buggify.FireProbability must be in [0, 1]",
	} {
		t.Setenv("SIMTEST_BADARG", arg)
		out := runHelper(t, "TestHelperBadArgs", "-simrt.seeds=0..2")
		if !strings.Contains(out, want) {
			t.Errorf("%s: output lacks %q:\n%s", arg, want, out)
		}
		for _, not := range []string{"replay:", "seed=0", "SIGSEGV", "run=1"} {
			if strings.Contains(out, not) {
				t.Errorf("%s: output has %q:\n%s", arg, not, out)
			}
		}
	}
}

// TestHelperDynamicMessage makes a Reachable whose message differs per
// seed.
func TestHelperDynamicMessage(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Reachable(ctx, "dynamic "+strconv.FormatUint(ctx.Seed(), 10))
	})
}

// TestDynamicMessageWarnsOnce: a property message built at run time makes
// one property per seed; the summary warns once, naming the call.
func TestDynamicMessageWarnsOnce(t *testing.T) {
	out, _ := runHelperStatus(t, "TestHelperDynamicMessage", "-simrt.seeds=0..2")
	want := "simrt: warning: the message of Reachable at simtest/badargs_test.go:"
	if strings.Count(out, want) != 1 || !strings.Contains(out, "is not a constant: it made 3 distinct properties") {
		t.Errorf("output has %d warnings %q..., want one that counts 3 properties:\n%s", strings.Count(out, want), want, out)
	}
}

// TestStrictEnvNamedInError: a bad SIMRT_STRICT is reported under the
// environment variable's name, not as a -simrt.strict flag.
func TestStrictEnvNamedInError(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFaults$", "-test.count=1", "-simrt.seeds=0..1")
	cmd.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperFaults", "SIMRT_STRICT=banana")
	out, _ := cmd.CombinedOutput()
	if want := `simtest: SIMRT_STRICT="banana": not a boolean`; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestReportLeavesOutNoise: a failing seed's report does not list the
// crash that ends every run when it did nothing, and a sweep in which no
// run started (a bad -simrt.replay path) prints no property summary.
func TestReportLeavesOutNoise(t *testing.T) {
	out := runHelper(t, "FuzzHelperError")
	if strings.Contains(out, "the crash that ends the run") || strings.Contains(out, "fault effects") {
		t.Errorf("the report lists the closing crash that did nothing:\n%s", out)
	}
	out = runHelper(t, "TestHelperFaults", "-simrt.seeds=0..1", "-simrt.replay="+filepath.Join(t.TempDir(), "missing.stream"))
	if strings.Contains(out, "over 0 runs") || strings.Contains(out, "goals missed") {
		t.Errorf("a sweep that ran nothing prints a summary:\n%s", out)
	}
}

// TestHelperTwoFailAtOnce fails seeds 0 and 1, each once both have
// started, so that with two workers both fail before the sweep stops.
func TestHelperTwoFailAtOnce(t *testing.T) {
	if !helper(t) {
		return
	}
	var started sync.WaitGroup
	started.Add(2)
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		if ctx.Seed() < 2 {
			started.Done()
			started.Wait() // outside the simulation's logic: the harness's barrier
			t.Error("planted failure")
		}
	})
}

// TestUncountedFailuresAreSaid: with two workers both failing seeds fail,
// the report counts the seeds up to the lowest one (as with one worker)
// and says that one more failed beside it.
func TestUncountedFailuresAreSaid(t *testing.T) {
	out := runHelper(t, "TestHelperTwoFailAtOnce", "-simrt.seeds=0..9", "-simrt.parallel=2")
	for _, want := range []string{"simrt: 1 of 1 seeds run failed (of 10 selected): 0; 1 more seed, running beside them, failed too (not counted",
		"first failing seed 0; replay: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestHelperDrawRand and TestHelperSpawnTask make different decisions.
func TestHelperDrawRand(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		for range 3 {
			ctx.Rand().IntN(10)
		}
	})
}

func TestHelperSpawnTask(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: 1}}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("w"), func(ctx simrt.Context) int { ctx.Sleep(0); return 1 }).Await(ctx)
	})
}

// TestReplayOfAnotherTestsStreamWarns: replaying a stream recorded by
// another test warns once at the first decision whose kind differs; its
// own test replays it without a warning.
func TestReplayOfAnotherTestsStreamWarns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rand.stream")
	if out, ok := runHelperStatus(t, "TestHelperDrawRand", "-simrt.record="+path); !ok {
		t.Fatalf("recording failed:\n%s", out)
	}
	out, _ := runHelperStatus(t, "TestHelperSpawnTask", "-simrt.replay="+path)
	want := "simrt: warning: -simrt.replay=" + path + " diverged at decision #0 (file: rand, run: "
	if strings.Count(out, want) != 1 {
		t.Errorf("replay by another test: want one warning %q..., got:\n%s", want, out)
	}
	if out, _ := runHelperStatus(t, "TestHelperDrawRand", "-simrt.replay="+path); strings.Contains(out, "diverged") {
		t.Errorf("replay by its own test warns:\n%s", out)
	}
}

// TestReplayNamesTheRecordingTest: -simrt.record names the test (and its
// package) in the stream file; a replay by another test says so before the
// run, naming both, and still warns where it diverges; a file that names
// no test (format 1) gets only the divergence warning; the recording test
// replays its file without a word.
func TestReplayNamesTheRecordingTest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rand.stream")
	if out, ok := runHelperStatus(t, "TestHelperDrawRand", "-simrt.record="+path); !ok {
		t.Fatalf("recording failed:\n%s", out)
	}
	const pkg = "github.com/simrt/simrt/simtest"
	s, err := decision.ReadStreamFile(path)
	if err != nil || s.Test != "TestHelperDrawRand" || s.Package != pkg {
		t.Fatalf("the recorded file names test %q of package %q (%v), want TestHelperDrawRand of %s", s.Test, s.Package, err, pkg)
	}
	other := "simrt: warning: -simrt.replay=" + path + ` was recorded by test "TestHelperDrawRand" of package ` + pkg +
		`, not by test "TestHelperSpawnTask" of package ` + pkg + ", which replays it"
	out, _ := runHelperStatus(t, "TestHelperSpawnTask", "-simrt.replay="+path)
	first, diverged := strings.Index(out, other), strings.Index(out, " diverged at decision #0")
	if strings.Count(out, other) != 1 || diverged < 0 || first > diverged {
		t.Errorf("replay by another test: want %q..., then the divergence warning, got:\n%s", other, out)
	}
	if out, _ := runHelperStatus(t, "TestHelperDrawRand", "-simrt.replay="+path); strings.Contains(out, "warning") {
		t.Errorf("replay by its own test warns:\n%s", out)
	}

	old := filepath.Join(dir, "old.stream")
	if err := (&decision.Stream{Decisions: s.Decisions}).WriteFile(old); err != nil {
		t.Fatal(err)
	}
	out, _ = runHelperStatus(t, "TestHelperSpawnTask", "-simrt.replay="+old)
	if strings.Contains(out, "was recorded by test") || !strings.Contains(out, "-simrt.replay="+old+" diverged at decision #0") {
		t.Errorf("a file without a test: want only the divergence warning, got:\n%s", out)
	}
}

// TestReplayDefaultsWarnsOnDivergence: -simrt.replaydefaults replays a
// stream as strictly as -simrt.replay: a run that diverges from the file
// is warned about, once, at the first decision whose kind differs.
func TestReplayDefaultsWarnsOnDivergence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rand.stream")
	if out, ok := runHelperStatus(t, "TestHelperDrawRand", "-simrt.record="+path); !ok {
		t.Fatalf("recording failed:\n%s", out)
	}
	out, _ := runHelperStatus(t, "TestHelperSpawnTask", "-simrt.replay="+path, "-simrt.replaydefaults")
	want := "simrt: warning: -simrt.replay=" + path + " -simrt.replaydefaults diverged at decision #0 (file: rand, run: "
	if strings.Count(out, want) != 1 || !strings.Contains(out, "the kind's default decides where the kinds differ") {
		t.Errorf("want one warning %q..., got:\n%s", want, out)
	}
	if out, _ := runHelperStatus(t, "TestHelperDrawRand", "-simrt.replay="+path, "-simrt.replaydefaults"); strings.Contains(out, "warning") {
		t.Errorf("replay by its own test warns:\n%s", out)
	}
}
