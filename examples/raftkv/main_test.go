package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
)

// TestBadFlagsExitTwoWithOneLine feeds run each kind of bad input: each is
// refused with exit code 2 and one line that names the problem.
func TestBadFlagsExitTwoWithOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-parallel", "0"}, "-parallel 0: at least 1"},
		{[]string{"-parallel", "-3"}, "-parallel -3: at least 1"},
		{[]string{"-nodes", "2"}, "-nodes 2: a cluster that survives a crash has at least 3 nodes"},
		{[]string{"-seed", "-1"}, "-seed -1: a seed is at least 0"},
		{[]string{"-seed", "4", "-seeds", "0..9"}, "give one of them"},
		{[]string{"-clients", "0"}, "-clients 0: at least 1 client"},
		{[]string{"-duration", "10ms"}, "-duration 10ms: at least 1s of simulated time"},
		{[]string{"0..9"}, `unexpected argument "0..9"`},
		{[]string{"-seeds", "0..199", "extra"}, `unexpected argument "extra"`},
		{[]string{"-seeds", "9..1"}, "-seeds: bad seeds"},
		{[]string{"-bug", "nope"}, `-bug: unknown bug "nope"`},
		{[]string{"-yield", "1.5"}, "-yield 1.5: a probability is between 0 and 1"},
		{[]string{"-yield", "-0.1"}, "-yield -0.1: a probability is between 0 and 1"},
		{[]string{"-yield", "NaN"}, "-yield NaN: a probability is between 0 and 1"},
		{[]string{"-strategy", "dfs"}, "-strategy dfs: uniform or pct"},
		{[]string{"-strategy", "pct", "-pctdepth", "0"}, "-pctdepth 0: at least 1"},
		{[]string{"-shrink", "-shrinkruns", "0"}, "-shrinkruns 0: at least 1"},
		{[]string{"-replay", "x.stream"}, "-schedule and -replay replay one seed: give -seed N"},
		{[]string{"-table", "-seed", "3"}, "-table sweeps seeds: give -seeds, not -seed"},
		{[]string{"-table", "-shrink"}, "-shrink and -table: give one of them"},
		// A value the flag package refuses: one line, not the usage.
		{[]string{"-seed", "x"}, `raftkv: invalid value "x" for flag -seed: parse error; see raftkv -h`},
		{[]string{"-nodes", "many"}, `raftkv: invalid value "many" for flag -nodes`},
		{[]string{"-nosuch"}, "raftkv: flag provided but not defined: -nosuch; see raftkv -h"},
		// Absurd sizes: refused above the documented maximum.
		{[]string{"-nodes", "100000"}, "-nodes 100000: at most 25 nodes"},
		{[]string{"-clients", "100000"}, "-clients 100000: at most 100 clients"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		msg := errb.String()
		if code != exitUsage {
			t.Errorf("%v: exit code %d, want %d", c.args, code, exitUsage)
		}
		if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, msg, c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%v: wrote to stdout: %q", c.args, out.String())
		}
	}
}

// TestYieldFlag: -yield 0 turns scheduling points off (the simulator's
// NoYield, not its zero, which is the default), the default is the
// simulator's, and a replay command carries a non-default probability.
func TestYieldFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want float64
		cmd  string
	}{
		{nil, deterministic.DefaultYieldProbability, "go run ./raftkv -seed 7"},
		{[]string{"-yield", "0"}, deterministic.NoYield, "go run ./raftkv -seed 7 -yield 0"},
		{[]string{"-yield", "0.25"}, 0.25, "go run ./raftkv -seed 7 -yield 0.25"},
		{[]string{"-yield", "1"}, 1, "go run ./raftkv -seed 7 -yield 1"},
	} {
		var errb bytes.Buffer
		o, err := parseFlags(c.args, &errb)
		if err != nil {
			t.Fatalf("%v: %v: %s", c.args, err, errb.String())
		}
		if o.yield != c.want {
			t.Errorf("%v: yield probability %v, want %v", c.args, o.yield, c.want)
		}
		r := &report{cfg: sweepConfig{base: simConfig{YieldProbability: o.yield}}}
		if got := r.replayCommand(7); got != c.cmd {
			t.Errorf("%v: replay command %q, want %q", c.args, got, c.cmd)
		}
	}
}

// TestUnknownFlagExitsTwo checks that a flag the command does not have is
// an error with exit code 2, as the flag package reports it.
func TestUnknownFlagExitsTwo(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-nosuch"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "-nosuch") {
		t.Errorf("exit code %d, stderr %q", code, errb.String())
	}
}

// TestHelpDocumentsExitCodes checks that -h exits 0 and explains the exit
// codes and that durations are simulated time.
func TestHelpDocumentsExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-h"}, &out, &errb); code != exitOK {
		t.Fatalf("exit code %d", code)
	}
	for _, want := range []string{"exit codes:", "0  every seed passed", "1  a seed failed", "2  bad flags", "simulated time"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestSummarySaysWhatWasChecked runs a small sweep through run and checks
// the summary: operations checked for linearizability, simulated time, and
// every fault kind counted.
func TestSummarySaysWhatWasChecked(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-seeds", "0..3", "-parallel", "2", "-out", t.TempDir()}, &out, &errb); code != exitOK {
		t.Fatalf("exit code %d:\n%s\n%s", code, out.String(), errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"up to 10s of simulated time per run",
		"seeds run:       4\n",
		"histories checked, 0 violations",
		"faults injected: ",
		"whole-cluster crashes",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	for _, k := range kindOrder {
		if !strings.Contains(text, k.String()+" ") {
			t.Errorf("summary does not count fault kind %q:\n%s", k, text)
		}
	}
	if errb.Len() > 0 {
		t.Errorf("progress bar drawn on a buffer, not a terminal: %q", errb.String())
	}
}

// TestFaultsCountedByKind checks that a run counts the faults it injects
// and that the counts are part of its deterministic outcome.
func TestFaultsCountedByKind(t *testing.T) {
	o := runSeed(simConfig{Seed: 3})
	total := 0
	for _, n := range o.Faults {
		total += n
	}
	if total == 0 {
		t.Fatalf("seed 3 counted no faults: %+v", o.Faults)
	}
	if again := runSeed(simConfig{Seed: 3}); again.Faults != o.Faults {
		t.Fatalf("fault counts differ between runs of one seed: %v and %v", o.Faults, again.Faults)
	}
	if !o.Checked {
		t.Errorf("seed 3 passed but its history is not marked checked")
	}
}

func TestCommas(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {208630, "208,630"}, {1234567, "1,234,567"}, {-4500, "-4,500"}} {
		if got := commas(c.n); got != c.want {
			t.Errorf("commas(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestRateHiddenAtFirst checks that the progress bar shows no rate before
// a second has passed (one early seed would make it absurd).
func TestRateHiddenAtFirst(t *testing.T) {
	if got := rateText(1, 3*time.Millisecond); got != "" {
		t.Errorf("rate after 3ms: %q, want none", got)
	}
	if got := rateText(30, 2*time.Second); got != ", 15.0 seeds/s" {
		t.Errorf("rate after 2s: %q", got)
	}
}
