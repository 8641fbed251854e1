package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simrt/simrt/nemesis"
)

// TestShrinkPlantedFailure shrinks a planted failure that needs faults
// (unsynced-vote, seed 90: two leaders in one term after a vote lost to a
// power loss) on a small budget: the result has fewer faults, still fails
// the same way, and the files it saves replay that failure through the
// command it prints.
func TestShrinkPlantedFailure(t *testing.T) {
	cfg := simConfig{Seed: 90, Bugs: bugSet{bugUnsyncedVote}}
	r, err := shrinkSeed(cfg, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.to.Events) >= len(r.from.Events) {
		t.Fatalf("shrunk from %d faults to %d: no smaller\n%s", len(r.from.Events), len(r.to.Events), r.to)
	}
	if r.runs > 30 {
		t.Errorf("%d runs on a budget of 30", r.runs)
	}
	if failureClass(r.final) != electionSafety {
		t.Fatalf("shrunk run fails with %q, want an %s", r.final, electionSafety)
	}
	s := r.to
	c := cfg
	c.Seed, c.Schedule = r.run, &s
	if o := runSeed(c); o.Failure == "" {
		t.Logf("the shrunk schedule passes without the shrunk stream (the stream's defaults are part of the reproduction)")
	}

	dir := t.TempDir()
	schedPath, streamPath, err := r.save(dir, cfg.Bugs)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := nemesis.ReadSchedule(schedPath); err != nil || back.String() != r.to.String() {
		t.Fatalf("saved schedule reads back as %v, %v; want\n%s", back, err, r.to)
	}
	var out bytes.Buffer
	c = cfg
	c.Seed = r.run
	r.print(&out, seedCommand(c), schedPath, streamPath)
	if want := "shrunk the schedule from "; !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
	var line string
	for l := range strings.Lines(out.String()) {
		if rest, ok := strings.CutPrefix(l, "replay: go run ./raftkv "); ok {
			line = strings.TrimSpace(rest)
		}
	}
	if line == "" {
		t.Fatalf("no replay command in:\n%s", out.String())
	}
	var replayOut, errb bytes.Buffer
	if code := run(strings.Fields(line), &replayOut, &errb); code != exitFail {
		t.Fatalf("replay %q: exit code %d, want %d (the failure); stderr %s", line, code, exitFail, errb.String())
	}
	if !strings.Contains(replayOut.String(), "FAIL: "+r.final) {
		t.Errorf("replay %q does not fail with %q:\n%s", line, r.final, lastLines(replayOut.String(), 5))
	}
	if filepath.Dir(schedPath) != dir {
		t.Errorf("schedule saved to %s, not in %s", schedPath, dir)
	}
}

// TestShrinkPassingSeed: a seed that passes has nothing to shrink, and
// says so.
func TestShrinkPassingSeed(t *testing.T) {
	_, err := shrinkSeed(simConfig{Seed: 0}, 10)
	if err == nil || !strings.Contains(err.Error(), "passes") {
		t.Fatalf("shrinking a passing seed: %v, want an error saying it passes", err)
	}
}

// TestScheduleFlag: -schedule replaces the drawn faults, a schedule whose
// heal is not the run's is refused, and the flags need -seed.
func TestScheduleFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.schedule")
	s := nemesis.Schedule{Heal: 6e9, Events: []nemesis.Event{{At: 5e8, Kind: nemesis.Isolate, For: 1e9, Nodes: []string{"n2"}}}}
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-seed", "3", "-schedule", path}, &out, &errb); code != exitOK {
		t.Fatalf("exit code %d, stderr %s, stdout %s", code, errb.String(), lastLines(out.String(), 5))
	}
	if !strings.Contains(out.String(), "faults injected: 1 (") || !strings.Contains(out.String(), "0 whole-cluster crashes") {
		t.Errorf("want the one isolate and no crash:\n%s", lastLines(out.String(), 5))
	}
	out.Reset()
	if code := run([]string{"-seed", "3", "-duration", "20s", "-schedule", path}, &out, &errb); code != exitFail ||
		!strings.Contains(out.String(), "heals at 6s; a run of 20s heals at 12s") {
		t.Errorf("a schedule healing at 6s in a 20s run: exit %d, want %d and the heal named:\n%s", code, exitFail, lastLines(out.String(), 3))
	}
	errb.Reset()
	if code := run([]string{"-schedule", path}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "give -seed N") {
		t.Errorf("-schedule without -seed: exit %d, stderr %q", code, errb.String())
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestShrinkFlag: -shrink with -seed shrinks that seed (on a tiny budget
// here, and no other seed) and prints the replay command with its files.
func TestShrinkFlag(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"-bug", "unsynced-vote", "-seed", "90", "-shrink", "-shrinkruns", "6", "-shrinkseeds", "0", "-out", dir}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit code %d, stderr %s", code, errb.String())
	}
	for _, want := range []string{"raftkv: seed 90 fails: " + electionSafety, "shrunk the schedule from ",
		"replay: go run ./raftkv -seed 90 -bug unsynced-vote -schedule " + filepath.Join(dir, "raftkv-unsynced-vote-seed90.schedule")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestFailureClass: the class of a failure ignores what differs between
// two runs that fail the same way (keys, operation counts, nodes, times).
func TestFailureClass(t *testing.T) {
	for _, c := range []struct{ failure, want string }{
		{"linearizability violation on key x (70 operations), key y (75 operations)", violation},
		{"linearizability violation on key z (12 operations)", violation},
		{"election safety violation: term 1 has two leaders, n3 and n4 (at 2.5s)", electionSafety},
		{"no progress: faults healed at 6s, yet at 10s; client 1 still waits", "no progress"},
		{"panic: raft n5: tocommit(2) is out of range", "panic"},
		{"nemesis: bad schedule", "nemesis"},
	} {
		if got := failureClass(c.failure); got != c.want {
			t.Errorf("failureClass(%q) = %q, want %q", c.failure, got, c.want)
		}
	}
}

// TestTableCommand runs the table on three seeds for a bug that seed 0
// finds: every strategy's cell shows it at run 1.
func TestTableCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-table", "-bug", "follower-read", "-seeds", "0..2", "-parallel", "1"}, &out, &errb); code != exitOK {
		t.Fatalf("exit code %d, stderr %s", code, errb.String())
	}
	var row string
	for l := range strings.Lines(out.String()) {
		if strings.HasPrefix(l, "| follower-read |") {
			row = l
		}
	}
	if cells := strings.Count(row, "| 1 / "); cells != len(strategies) {
		t.Errorf("row %q: %d cells found at run 1, want %d\n%s", row, cells, len(strategies), out.String())
	}
}

// TestShrinkSeeds: when a seed's shrink stays above 3 faults (here on a
// budget of 4 runs a seed), the next failing seeds are shrunk too, each
// named, and the result with the fewest faults is kept.
func TestShrinkSeeds(t *testing.T) {
	cfg := simConfig{Seed: 0, Bugs: bugSet{bugFollowerRead}}
	best, tried, err := shrinkSeeds(cfg, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tried %v, kept seed %d (%d faults)", tried, best.seed, len(best.to.Events))
	if len(tried) != 3 {
		t.Fatalf("shrank %d seeds (%v), want 3: the first two stay above %d faults on 4 runs", len(tried), tried, smallSchedule)
	}
	if !strings.HasPrefix(tried[0], "0 (") {
		t.Errorf("first seed shrunk: %q, want seed 0", tried[0])
	}
	for _, s := range tried {
		var seed uint64
		var faults int
		if _, err := fmt.Sscanf(s, "%d (%d faults", &seed, &faults); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if faults < len(best.to.Events) {
			t.Errorf("seed %d shrank to %d faults, yet the kept seed %d has %d", seed, faults, best.seed, len(best.to.Events))
		}
	}
	again, tried2, err := shrinkSeeds(cfg, 4, 2, 1)
	if err != nil || again.seed != best.seed || strings.Join(tried2, ";") != strings.Join(tried, ";") {
		t.Errorf("not deterministic: %v then %v (%v)", tried, tried2, err)
	}
}

// TestShrinkBudget: a shrink makes at most the runs it is given.
func TestShrinkBudget(t *testing.T) {
	for _, budget := range []int{minShrinkRuns, 9} {
		r, err := shrinkSeed(simConfig{Seed: 90, Bugs: bugSet{bugUnsyncedVote}}, budget)
		if err != nil {
			t.Fatal(err)
		}
		if r.runs > budget {
			t.Errorf("%d runs on a budget of %d", r.runs, budget)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"-bug", "unsynced-vote", "-seed", "90", "-shrink", "-shrinkruns", "3"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "-shrinkruns 3: at least 4") {
		t.Errorf("-shrinkruns 3: exit %d, stderr %q", code, errb.String())
	}
}
