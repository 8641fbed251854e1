package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

func TestCorpusSize(t *testing.T) {
	if n := len(Corpus()); n < 12 {
		t.Fatalf("corpus has %d kernels, want at least 12", n)
	}
}

// TestEveryKernelDetected: each kernel is found within 1,000 seeds by at
// least one scheduler.
func TestEveryKernelDetected(t *testing.T) {
	for _, e := range Corpus() {
		found := false
		for _, s := range Schedulers() {
			if FirstDetection(e.Bug, s, 1000) > 0 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: no scheduler detected it within 1000 seeds", e.Name)
		}
	}
}

// TestPCTFindsShallowKernels: every kernel of depth at most 2 is found by
// PCT (d = 2 or 3) within 1,000 seeds.
func TestPCTFindsShallowKernels(t *testing.T) {
	var pct []Sched
	for _, s := range Schedulers() {
		if strings.HasPrefix(s.Name, "pct/d=2") || strings.HasPrefix(s.Name, "pct/d=3") {
			pct = append(pct, s)
		}
	}
	if len(pct) != 2 {
		t.Fatalf("found %d PCT schedulers of depth 2 and 3, want 2", len(pct))
	}
	for _, e := range Corpus() {
		if e.Depth > 2 {
			continue
		}
		found := false
		for _, s := range pct {
			if FirstDetection(e.Bug, s, 1000) > 0 {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s (depth %d): PCT d=2 and d=3 missed it in 1000 seeds", e.Name, e.Depth)
		}
	}
}

// TestFixedTwinsNeverFail: no fixed twin is detected on any of 200 seeds
// (50 with -short) per scheduler.
func TestFixedTwinsNeverFail(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	for _, e := range Corpus() {
		for _, s := range Schedulers() {
			if first := FirstDetection(e.Fixed, s, n); first > 0 {
				t.Errorf("%s fixed twin under %s fails at seed %d", e.Name, s.Name, first-1)
			}
		}
	}
}

func TestTableDeterministic(t *testing.T) {
	a, b := Table(20), Table(20)
	if a != b {
		t.Fatalf("two tables over the same seeds differ:\n%s\n%s", a, b)
	}
	if got, want := strings.Count(a, "\n| "), len(Corpus())+len(Planted())+1; got != want {
		t.Fatalf("table has %d rows, want %d:\n%s", got, want, a)
	}
	if !strings.Contains(a, " fuzz | branch |") || !strings.Contains(a, "| two-rare-buggify | 2 |") {
		t.Fatalf("table lacks the fuzz and branch columns or the planted row:\n%s", a)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-seeds", "0"}, {"-seeds", "-3"}, {"-seeds", "x"}, {"-nope"}, {"extra"}, {"-tworare", "-1"}, {"-tworare", "2", "-limit", "0"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%q: exit code %d, want 2", args, code)
		}
		if lines := strings.Count(errb.String(), "\n"); lines != 1 || out.Len() != 0 {
			t.Errorf("%q: stderr %q (want one line), stdout %q", args, errb.String(), out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-seeds", "3"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "| lost-wakeup |") {
		t.Fatalf("-seeds 3: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestTwoRareBranchingBeatsUniform: the branching explorer finds the
// planted two-rare-buggify bug within 1,000 runs for explorer seeds 0..2;
// uniform seeds 0..999 do not find it; the fixed twin fails under
// neither.
func TestTwoRareBranchingBeatsUniform(t *testing.T) {
	e := Planted()[0]
	cfg := deterministic.Config{Buggify: e.Buggify}
	for seed := range uint64(3) {
		rep := simtest.BranchSearch(cfg, simtest.BranchOptions{Runs: 1000, Seed: seed}, func(c deterministic.Config) bool { return Run(c, e.Bug) })
		if rep.FirstFailure == 0 {
			t.Errorf("explorer seed %d: not found in 1000 runs; goals %+v", seed, rep.Sites)
		}
	}
	if first, _ := seedSweep(cfg, e.Bug, 1000); first > 0 {
		t.Errorf("uniform seed %d found it: the planted bug is not rare enough", first-1)
	}
	if _, hits := BranchRuns(cfg, e.Fixed, 2000); hits > 0 {
		t.Errorf("the fixed twin failed in %d branching runs", hits)
	}
	if _, hits := seedSweep(cfg, e.Fixed, 2000); hits > 0 {
		t.Errorf("the fixed twin failed on %d seeds", hits)
	}
}

// TestFuzzRandomUsesTheBytes: the fuzz strategy's runs follow their bytes:
// a kernel that reports its first draw below 16 is detected on about 1 in
// 16 executions, and the same executions every time.
func TestFuzzRandomUsesTheBytes(t *testing.T) {
	k := func(ctx simrt.Context) bool { return ctx.Rand().IntN(256) < 16 }
	first, hits := FuzzRandom(deterministic.Config{}, k, 1600)
	if hits < 50 || hits > 150 || first == 0 {
		t.Fatalf("detected on %d of 1600 executions (first %d), want about 100", hits, first)
	}
	if f2, h2 := FuzzRandom(deterministic.Config{}, k, 1600); f2 != first || h2 != hits {
		t.Fatalf("second measurement %d/%d differs from %d/%d", f2, h2, first, hits)
	}
}
