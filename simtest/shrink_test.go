package simtest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/simtest"
)

// plantedDraws fails as soon as one of its draws after the third of a
// worker is 9, among
// workers that sleep and yield: nearly every seed fails, with a stream of
// many decisions of which one draw is all the failure needs.
func plantedDraws(t *testing.T, ctx *deterministic.Context) {
	var hs []*simrt.Handle[int]
	for w := range 4 {
		hs = append(hs, simrt.Spawn(ctx.Child(fmt.Sprintf("w%d", w)), func(ctx simrt.Context) int {
			for i := range 10 {
				ctx.Sleep(time.Duration(ctx.Rand().IntN(3)) * time.Millisecond)
				if v := ctx.Rand().IntN(10); v == 9 && i > 2 {
					panic(fmt.Sprintf("planted: draw %d at step %d", v, i))
				}
			}
			return 0
		}))
	}
	for _, h := range hs {
		h.Await(ctx)
	}
}

var shrinkConfig = deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: 0.5}}

func TestHelperShrinkPlanted(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, shrinkConfig, plantedDraws)
}

var reShrunk = regexp.MustCompile(`simrt: shrank seed (\d+) \((.*)\) from (\d+) faults and ([\d,]+) decisions \(([\d,]+) not the default\) to (\d+) and ([\d,]+) \(([\d,]+)\)[^\n]* in \d+ runs; saved to (\S+?)(?: and (\S+))?\n\s*replay: (.*)`)

// shrinkResult is what a shrink's log says.
type shrinkResult struct {
	seed, class                  string
	fromFaults, fromN, fromK     int
	toFaults, toN, toK           int
	stream, schedule, replayLine string
}

// parseShrunk finds the shrink result in log, or fails the test.
func parseShrunk(t *testing.T, log string) shrinkResult {
	t.Helper()
	m := reShrunk.FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no shrink result in:\n%s", log)
	}
	n := func(s string) int { return atoi(strings.ReplaceAll(s, ",", "")) }
	return shrinkResult{seed: m[1], class: m[2], fromFaults: n(m[3]), fromN: n(m[4]), fromK: n(m[5]),
		toFaults: n(m[6]), toN: n(m[7]), toK: n(m[8]), stream: m[9], schedule: m[10], replayLine: m[11]}
}

// TestShrinkPlantedFailure shrinks the planted failure: the result must
// be shorter and all defaults but the one draw the panic needs, and the
// command it prints must replay the same failure, through the test binary
// and through the API.
func TestShrinkPlantedFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shrunk.stream")
	log := runHelper(t, "TestHelperShrinkPlanted", "-simrt.shrink", "-simrt.shrinkout="+out)
	r := parseShrunk(t, log)
	n, k, shortN, j := r.fromN, r.fromK, r.toN, r.toK
	if r.class != "panic: planted: draw # at step #" {
		t.Errorf("failure class %q", r.class)
	}
	if r.fromFaults != 0 || r.toFaults != 0 || r.schedule != "" {
		t.Errorf("faults in a test without a nemesis: %+v", r)
	}
	if shortN >= n || j >= k {
		t.Errorf("did not shrink: from %d (%d non-default) to %d (%d non-default)", n, k, shortN, j)
	}
	if j != 1 {
		t.Errorf("%d non-default decisions left, want 1 (the draw that panics)", j)
	}
	if !regexp.MustCompile(`the decisions that are not the default:\n\s+#\d+ rand 0x[0-9a-f]{16}\n`).MatchString(log) {
		t.Errorf("the report does not list the one non-default decision:\n%s", log)
	}
	if r.stream != out {
		t.Errorf("saved to %s, want %s", r.stream, out)
	}
	want := fmt.Sprintf("go test -run '^TestHelperShrinkPlanted$' ./simtest -simrt.seed=1 -simrt.replay=%s", out)
	if r.replayLine != want {
		t.Errorf("replay command\n %s\nwant\n %s", r.replayLine, want)
	}

	// The command, run by the test binary go test would build.
	replay := runHelper(t, "TestHelperShrinkPlanted", "-simrt.seed=1", "-simrt.replay="+out)
	if !strings.Contains(replay, "panic: planted: draw ") {
		t.Errorf("replaying the shrunk stream did not fail the same way:\n%s", replay)
	}

	// The stream, through the API: the same panic, and the same stream.
	s, err := decision.ReadStreamFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Decisions) != shortN || s.NonDefault() != j {
		t.Errorf("file holds %d decisions (%d non-default), report says %d (%d)", len(s.Decisions), s.NonDefault(), shortN, j)
	}
	rec := &decision.Stream{}
	cfg := shrinkConfig
	cfg.Replay, cfg.Hooks.Record = s, rec
	got := func() (r any) {
		defer func() { r = recover() }()
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { plantedDraws(t, ctx) })
		return nil
	}()
	if got == nil || !strings.Contains(fmt.Sprint(got), "planted: draw ") {
		t.Errorf("the API replay of the shrunk stream ended with %v, want the planted panic", got)
	}
	if len(rec.Decisions) != len(s.Decisions) {
		t.Errorf("the API replay made %d decisions, the file has %d", len(rec.Decisions), len(s.Decisions))
	}
}

// decisive draws ten numbers that do not matter, then the one that does
// (decision #10: the run has no other decisions), then forty more (more
// events than a report keeps); it fails if the decisive draw was odd.
func decisive(t *testing.T, ctx *deterministic.Context) {
	var sum uint64
	for range 10 {
		sum += ctx.Rand().Uint64()
	}
	bad := ctx.Rand().Uint64()&1 == 1
	for range 40 {
		sum += ctx.Rand().Uint64()
	}
	ctx.Sleep(time.Millisecond)
	if bad {
		t.Errorf("the decisive draw was odd (noise %d)", sum)
	}
}

func TestHelperInevitable(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{}, decisive)
}

// TestInevitableFindsTheDecisiveDraw checks that the search names the
// decisive draw, and only it, as the moment the failure became
// inevitable.
func TestInevitableFindsTheDecisiveDraw(t *testing.T) {
	seed := uint64(0)
	for ; ; seed++ { // the first seed whose decisive draw is odd
		var odd bool
		deterministic.New(deterministic.Config{Seed: seed}).Start(func(ctx *deterministic.Context) {
			for range 10 {
				ctx.Rand().Uint64()
			}
			odd = ctx.Rand().Uint64()&1 == 1
		})
		if odd {
			break
		}
	}
	s := strconv.FormatUint(seed, 10)
	log := runHelper(t, "TestHelperInevitable", "-simrt.seed="+s, "-simrt.inevitable", "-simrt.continuations=10")
	want := "simrt: seed " + s + " (the test failed (t.Error) inside the simulation in task \"<root>\") became inevitable at decision #10 of 51 (rand "
	if !strings.Contains(log, want) {
		t.Fatalf("want %q in:\n%s", want, log)
	}
	for _, want := range []string{
		"replaying decisions #0..#10, then fresh seeds: 10 of 10 runs fail the same way (threshold 95%)",
		"> #10 rand ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("report lacks %q:\n%s", want, log)
		}
	}
	// The events around the decision, from the whole event log (a
	// report's log keeps only the last 20): the draw's own event is #11.
	if !regexp.MustCompile(`events of the run around it: decision made after event #11\n` +
		`(\s+#\d+ [^\n]*\n){11}\s+#11 \+0s <root>: rand "next_u64" -> \w+\n\s+---- decision here ----\n\s+#12 \+0s <root>: rand`).MatchString(log) {
		t.Errorf("no events around the decision in:\n%s", log)
	}
	if m := regexp.MustCompile(`replaying one fewer \(#0..#9\): (\d+) of 10`).FindStringSubmatch(log); m == nil || atoi(m[1]) >= 10 {
		t.Errorf("before the decisive draw the failure should not be certain:\n%s", log)
	}
}

// TestReplayFlagErrors: a missing or malformed stream file is a clear
// error, not a panic.
func TestReplayFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.stream")
	if err := os.WriteFile(bad, []byte("not a stream"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.stream"), bad} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperInevitable$", "-test.count=1", "-simrt.replay="+path)
		cmd.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperInevitable")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "simrt: -simrt.replay="+path+": ") || strings.Contains(string(out), "panic:") {
			t.Errorf("replay of %s: %v\n%s", path, err, out)
		}
	}
}

// TestReplayDefaultsAlone: -simrt.replaydefaults without a stream runs
// every decision at its default, so the planted failure, which needs a
// draw of 9, does not happen.
func TestReplayDefaultsAlone(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperShrinkPlanted$", "-test.count=1", "-simrt.replaydefaults")
	cmd.Env = append(os.Environ(), "SIMTEST_HELPER=TestHelperShrinkPlanted")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the all-defaults run failed: %v\n%s", err, out)
	}
}

// TestShrinkUnderExplore: a failing seed of a sweep is shrunk too, and
// its replay command names the test (Explore picks the seed's subtest
// from -simrt.seed), not the subtest.
func TestShrinkUnderExplore(t *testing.T) {
	out := filepath.Join(t.TempDir(), "explore.stream")
	log := runHelper(t, "TestHelperPanic", "-simrt.seeds=0..199", "-simrt.shrink", "-simrt.shrinkout="+out)
	r := parseShrunk(t, log)
	if r.class != "panic: b became leader before a" {
		t.Errorf("failure class %q", r.class)
	}
	if strings.Count(log, "simrt: shrank seed") != 1 {
		t.Errorf("more than one seed shrunk:\n%s", log)
	}
	want := fmt.Sprintf("go test -run '^TestHelperPanic$' ./simtest -simrt.seed=%s -simrt.replay=%s", r.seed, out)
	if r.replayLine != want {
		t.Errorf("replay command\n %s\nwant\n %s", r.replayLine, want)
	}
	replay := runHelper(t, "TestHelperPanic", "-simrt.seed="+r.seed, "-simrt.replay="+out)
	if !strings.Contains(replay, "panic: b became leader before a") {
		t.Errorf("the shrunk stream does not replay the failure:\n%s", replay)
	}
}

// TestHelperSeedDecides fails on the seeds that are multiples of 3,
// whatever its decisions: a continuation's fresh seed decides it, as a
// schedule drawn from the seed did before continuations kept it.
func TestHelperSeedDecides(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{Seed: 3}, func(t *testing.T, ctx *deterministic.Context) {
		for range 8 {
			ctx.Rand().Uint64()
		}
		if ctx.Seed()%3 == 0 {
			t.Errorf("planted: the seed is a multiple of 3")
		}
	})
}

// TestInevitableAtNoPoint: when no prefix makes the failure inevitable,
// not even the whole stream, the search says so with the best share it
// measured. Before, it named the last decision ("became inevitable at
// decision #7 of 8") above a share far below the threshold.
func TestInevitableAtNoPoint(t *testing.T) {
	log := runHelper(t, "TestHelperSeedDecides", "-simrt.inevitable", "-simrt.continuations=10")
	if strings.Contains(log, "became inevitable at decision") {
		t.Errorf("names a decision:\n%s", log)
	}
	m := regexp.MustCompile(`simrt: seed 3 \(.*\) became inevitable at no point of its 8 decisions: no prefix made 95% of 10 continuations fail the same way, not even the whole stream \((\d+) of 10\); the best share measured was (\d+) of 10, after `).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no answer in:\n%s", log)
	}
	if whole, best := atoi(m[1]), atoi(m[2]); whole >= 10 || best < whole {
		t.Errorf("whole stream %d of 10, best %d", whole, best)
	}
}
