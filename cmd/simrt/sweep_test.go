package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/simrt/simrt/internal/seeds"
)

// The end-to-end tests run go test on testdata/sample, whose TestLeader
// fails on the seeds where task "c" wins a race.

func sweepOut(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"sweep", "./testdata/sample", "-run", "TestLeader"}, args...), &out, &errb)
	if !strings.Contains(errb.String(), "seeds/s") {
		t.Errorf("no progress bar with seeds/s on stderr:\n%s", errb.String())
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
	set, err := seeds.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var list []uint64
	for s := range (seeds.Shard{I: 0, N: 1}).Pick(set) {
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
	out, code := sweepOut(t, "-seeds", "0,1,2,4,5")
	if code != 0 || !strings.Contains(out, "swept 5 of 5 seeds") || !strings.Contains(out, ": 0 failed") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestReplayReproducesAndWritesTrace(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "seed3.json")
	var out, errb bytes.Buffer
	code := dispatch([]string{"replay", "./testdata/sample", "-run", "TestLeader", "-seed", "3", "-trace", tr}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (seed 3 fails):\n%s\n%s", code, out.String(), errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"simrt: seed 3 failed at 2ms of simulated time",
		"c became leader",
		"audit state: ",
		"replay: go test -run '^TestLeader$' ./testdata/sample -simrt.seed=3",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("replay output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "seed=4") {
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

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"sweep"},
		{"sweep", "./testdata/sample"},
		{"sweep", "./testdata/sample", "-run", "TestLeader", "-seeds", "9..1"},
		{"sweep", "./testdata/sample", "-run", "TestLeader", "-shard", "2/2"},
		{"replay", "./testdata/sample", "-run", "TestLeader"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
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
	return seeds.Compact([]uint64{n}).String()
}

func newFlagSetForTest(w *bytes.Buffer) *flag.FlagSet {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}
