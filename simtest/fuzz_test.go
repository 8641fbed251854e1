package simtest_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// FuzzCounter is an ordinary fuzz test of a simulation: two tasks add to a
// counter under a mutex while the fuzzer's bytes pick the schedule. Plain
// go test runs its seed inputs; go test -fuzz FuzzCounter explores.
func FuzzCounter(f *testing.F) {
	simtest.Fuzz(f, deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: 0.5}}, func(t *testing.T, ctx *deterministic.Context) {
		var mu simrt.Mutex
		n := 0
		var hs []*simrt.Handle[int]
		for _, name := range []string{"a", "b"} {
			hs = append(hs, simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int {
				for range 3 {
					mu.Lock(ctx)
					v := n
					ctx.Sleep(0)
					n = v + 1
					mu.Unlock()
				}
				return 0
			}))
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		simrt.Always(ctx, n == 6, "fuzz: no increment lost", "n", n)
	})
}

// FuzzHelperStaircase fails only when each of the run's first four draws
// (of 0..255) is at least 240: one run in 65,536 by seeds, seconds of go
// test -fuzz (each step is new coverage). It fails only when
// TestFuzzCorpusReplays runs it: in a plain go test the planted failure is
// switched off and its committed corpus input passes like any other. That
// input, in testdata/fuzz/FuzzHelperStaircase, was found by
//
//	SIMTEST_HELPER=FuzzHelperStaircase go test -run '^$' -fuzz '^FuzzHelperStaircase$' ./simtest
func FuzzHelperStaircase(f *testing.F) {
	planted := os.Getenv("SIMTEST_HELPER") == f.Name()
	simtest.Fuzz(f, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		r := ctx.Rand()
		if r.IntN(256) < 240 {
			return
		}
		if r.IntN(256) < 240 {
			return
		}
		if r.IntN(256) < 240 {
			return
		}
		if r.IntN(256) < 240 {
			return
		}
		if planted {
			t.Fatalf("planted: the four-step staircase was climbed")
		}
	})
}

// TestFuzzCorpusReplays: plain go test reruns the committed corpus file
// go test -fuzz found for FuzzHelperStaircase, fails with the planted
// failure, reports it as simtest does and names the command that reruns
// that input.
func TestFuzzCorpusReplays(t *testing.T) {
	entries, err := os.ReadDir("testdata/fuzz/FuzzHelperStaircase")
	if err != nil || len(entries) == 0 {
		t.Fatalf("no committed corpus entry for FuzzHelperStaircase: %v", err)
	}
	out := runHelper(t, "FuzzHelperStaircase")
	for _, want := range []string{
		"--- FAIL: FuzzHelperStaircase/" + entries[0].Name(),
		"planted: the four-step staircase was climbed",
		"simrt: seed ",
		"replay: go test -run '^FuzzHelperStaircase$/^" + regexp.QuoteMeta(entries[0].Name()) + "$' ./simtest",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The seed inputs Fuzz adds pass: only the corpus file fails.
	if strings.Contains(out, "--- FAIL: FuzzHelperStaircase/seed#") {
		t.Errorf("a seed input failed:\n%s", out)
	}
}

// FuzzHelperError fails every input with t.Error from a task, only under
// TestFuzzErrorReport.
func FuzzHelperError(f *testing.F) {
	planted := os.Getenv("SIMTEST_HELPER") == f.Name()
	simtest.Fuzz(f, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) int {
			if planted {
				t.Errorf("planted: checker unhappy")
			}
			return 0
		}).Await(ctx)
	})
}

// TestFuzzErrorReport: a fuzz input failed with t.Error is reported as
// simtest reports a seed (task, events), and its replay line reruns that
// input, without a -simrt.seed that Fuzz would ignore.
func TestFuzzErrorReport(t *testing.T) {
	out := runHelper(t, "FuzzHelperError")
	for _, want := range []string{
		"planted: checker unhappy",
		"simrt: seed 0 failed at 1ms of simulated time",
		`the test was first marked failed (t.Error, t.Fatal, t.Fail) at 1ms of simulated time in task "checker"`,
		"replay: go test -run '^FuzzHelperError$/^seed#0$' ./simtest\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestFuzzSeedInputReplay: under go test -fuzz a failing seed input that
// Fuzz added is rerun by its name (go test saves nothing for a seed input),
// not promised as a file in testdata/fuzz.
func TestFuzzSeedInputReplay(t *testing.T) {
	out := runHelper(t, "FuzzHelperError", "-test.run=^$", "-test.fuzz=^FuzzHelperError$", "-test.fuzztime=1x",
		"-test.fuzzcachedir="+t.TempDir(), "-test.parallel=1")
	if want := "replay: go test -run '^FuzzHelperError$/^seed#0$' ./simtest\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "saves this input") {
		t.Errorf("a seed input is said to be saved:\n%s", out)
	}
}

// FuzzHelperUserAdd adds two seed inputs of its own (seeds 9 and 7) before
// Fuzz adds its four (seeds 0 to 3), so go test names Fuzz's seed#2 to
// seed#5. Under TestFuzzReplayCountsCallersInputs it fails the input
// whose seed is SIMTEST_FAILSEED.
func FuzzHelperUserAdd(f *testing.F) {
	planted := os.Getenv("SIMTEST_HELPER") == f.Name()
	f.Add(binary.LittleEndian.AppendUint64(nil, 9))
	f.Add(binary.LittleEndian.AppendUint64(nil, 7))
	simtest.Fuzz(f, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		if planted && strconv.FormatUint(ctx.Seed(), 10) == os.Getenv("SIMTEST_FAILSEED") {
			t.Fatalf("planted: seed %d", ctx.Seed())
		}
	})
}

// TestFuzzReplayCountsCallersInputs: under go test -fuzz, the replay line
// of a failing seed input names it as go test does, counting the seed
// inputs the caller added before Fuzz: Fuzz's seed 2 is seed#4, and the
// caller's second input is seed#1 (a seed input, not one go test saves).
func TestFuzzReplayCountsCallersInputs(t *testing.T) {
	for _, c := range []struct{ seed, name string }{{"2", "seed#4"}, {"7", "seed#1"}} {
		t.Setenv("SIMTEST_FAILSEED", c.seed)
		out := runHelper(t, "FuzzHelperUserAdd", "-test.run=^$", "-test.fuzz=^FuzzHelperUserAdd$", "-test.fuzztime=100x",
			"-test.fuzzcachedir="+t.TempDir(), "-test.parallel=1")
		if want := "replay: go test -run '^FuzzHelperUserAdd$/^" + c.name + "$' ./simtest\n"; !strings.Contains(out, want) {
			t.Errorf("seed %s: output lacks %q:\n%s", c.seed, want, out)
		}
		if !strings.Contains(out, "failure while testing seed corpus entry: FuzzHelperUserAdd/"+c.name) {
			t.Errorf("seed %s: go test names another entry than %s:\n%s", c.seed, c.name, out)
		}
		if strings.Contains(out, "saves this input") {
			t.Errorf("seed %s: a seed input is said to be saved:\n%s", c.seed, out)
		}
	}
	// Plain go test names the input itself.
	t.Setenv("SIMTEST_FAILSEED", "2")
	if out := runHelper(t, "FuzzHelperUserAdd"); !strings.Contains(out, "replay: go test -run '^FuzzHelperUserAdd$/^seed#4$' ./simtest\n") {
		t.Errorf("plain go test: no replay of seed#4:\n%s", out)
	}
}

// TestHelperRunFatal fails its simulation with t.Fatal.
func TestHelperRunFatal(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{Seed: 3}, func(t *testing.T, ctx *deterministic.Context) {
		ctx.Rand().IntN(10)
		t.Fatalf("planted fatal")
	})
}

// TestFatalReplayKeepsStreamFlags: the report of a t.Fatal inside the
// simulation (which simtest makes while the test goroutine unwinds) has
// the same replay line as any other failure: with the stream flags the
// run was given.
func TestFatalReplayKeepsStreamFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fatal.stream")
	runHelper(t, "TestHelperRunFatal", "-simrt.record="+path)
	out := runHelper(t, "TestHelperRunFatal", "-simrt.replay="+path, "-simrt.replaydefaults")
	if want := "replay: go test -run '^TestHelperRunFatal$' ./simtest -simrt.seed=3 -simrt.replay=" + path + " -simrt.replaydefaults\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
