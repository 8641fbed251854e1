package main

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/simrt/simrt/fault"
	simsweep "github.com/simrt/simrt/sweep"
)

// Error implements error: a failing seed's error is its headline.
func (f sweepFailure) Error() string { return f.headline() }

// reLogged matches a line the test logged (t.Error, t.Fatal, t.Log): the
// file and line, then the message's first line.
var reLogged = regexp.MustCompile(`^\s+(\S+\.go:\d+: )(.*)$`)

// headline is the report's most telling line: for a failure by t.Error or
// t.Fatal, the first line of the first message the test logged (with its
// file and line); for a panic, a stall or a timeout, what simtest says
// failed; for a test process that died, its panic or fatal error. The
// simulated time of the failure follows when the report has it.
func (f sweepFailure) headline() string {
	what, when, simrtSays := "", "", false
	for i, l := range f.report {
		if !strings.Contains(l, "simrt: seed ") {
			continue
		}
		simrtSays = true
		if i+1 < len(f.report) {
			what = strings.TrimSpace(f.report[i+1])
		}
		if at := strings.Index(l, " failed at "); at >= 0 {
			when, _, _ = strings.Cut(l[at+len(" failed at "):], " ")
		}
		break
	}
	if !simrtSays || strings.HasPrefix(what, "the test failed") {
		for _, l := range f.report {
			if m := reLogged.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[2], "simrt: ") {
				what = m[1] + m[2]
				break
			}
		}
	}
	if f.crashed {
		for _, l := range f.report {
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				what = "the test process died: " + l
				break
			}
		}
		if last := f.report[len(f.report)-1]; what == "" && strings.HasPrefix(last, "(the test process died: exit status ") {
			// No panic: the process exited, by os.Exit in the
			// simulation (a log.Fatal simtest turns into a panic).
			what = "the test process exited while the seed ran (" + strings.TrimPrefix(strings.TrimSuffix(last, ")"), "(the test process died: ") + "): an os.Exit in the simulation?"
		}
	}
	if what == "" {
		for _, l := range f.report {
			if l = strings.TrimSpace(l); l != "" {
				what = l
				break
			}
		}
	}
	if what == "" {
		what = "failed"
	}
	if when != "" {
		what += " (at " + when + ")"
	}
	return what
}

// replayCommand is the command that replays seed, to run from where the
// sweep was run, with the test flags the sweep forwarded after --.
func (s *sweep) replayCommand(seed uint64, trace bool) string {
	cmd := fmt.Sprintf("simrt replay %s -run %s -seed %d", s.pkg, shellQuote(s.runFlag), seed)
	if trace {
		cmd += fmt.Sprintf(" -trace seed%d.json", seed)
	}
	if len(s.extra) > 0 { // the test flags the sweep ran with (a -simrt.schedule file, say)
		cmd += " --"
		for _, a := range s.extra {
			cmd += " " + shellQuote(a)
		}
	}
	return cmd
}

// shellQuote quotes arg for a POSIX shell when it needs quoting.
func shellQuote(arg string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./=:,+-]+$`).MatchString(arg) {
		return arg
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

// sweepReport is the summary of a sweep, as -json prints it.
type sweepReport struct {
	Package         string          `json:"package"`
	Test            string          `json:"test"`
	Seeds           int             `json:"seeds"`      // selected (this shard's)
	SeedsDone       int             `json:"seeds_done"` // finished, passed or failed
	Failed          int             `json:"failed"`
	FailingSeeds    string          `json:"failing_seeds"` // compact: "3,7,10..12"
	Failures        []failureReport `json:"failures"`
	ProcessFailures int             `json:"process_failures"` // test processes that failed before a seed
	// ExitFailures counts the test processes that failed after their
	// seeds ran, with no failing seed to explain it: a check of the test
	// after Explore, TestMain (a leak check), a panic at exit.
	ExitFailures   int     `json:"exit_failures"`
	NoSeedRan      bool    `json:"no_seed_ran"` // the test does not call simtest.Explore
	Interrupted    bool    `json:"interrupted"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	SeedsPerSecond float64 `json:"seeds_per_second"`
	// Faults counts the faults injected over the seeds run, by kind.
	Faults fault.Counts `json:"faults"`
	// Effects sums what those faults did, by counter: "sends_held",
	// "sends_delayed", "sends_dropped", "dials_refused", "dials_held",
	// "conns_reset", "ops_failed", "ops_slowed", "writes_lost",
	// "writes_torn" (see deterministic.FaultEffect).
	Effects map[fault.Counter]uint64 `json:"effects"`
	// Properties and Buggify are what the seeds run reached.
	Properties []propertyReport `json:"properties"`
	Buggify    []buggifyReport  `json:"buggify"`
	// Unreached are the calls found in the package's source that no seed
	// reached.
	Unreached []unreachedReport `json:"unreached"`
	// Missed lists the goals missed, one line each (see missedGoals).
	Missed []string `json:"missed"`
	// Strict is set with -simrt.strict (or SIMRT_STRICT): a missed goal
	// fails the sweep unless it ran only part of the seeds (a shard, an
	// interrupted or failed sweep); StrictFailed says it did.
	Strict       bool `json:"strict"`
	StrictFailed bool `json:"strict_failed"`
}

// failureReport is one failing seed in a sweepReport.
type failureReport struct {
	Seed     uint64 `json:"seed"`
	Headline string `json:"headline"`
	Replay   string `json:"replay"`
}

// report gathers the summary; s.mu need not be held, every worker is done.
// The failures are in seed order, as the sweep engine reported them.
func (s *sweep) report(elapsed time.Duration, interrupted bool) sweepReport {
	r := sweepReport{Package: s.pkg, Test: s.runFlag, Seeds: s.total(), SeedsDone: s.done,
		Failed: len(s.failures), Failures: []failureReport{}, ProcessFailures: s.processes, ExitFailures: s.exitFailures,
		NoSeedRan: s.noSeed, Interrupted: interrupted, ElapsedSeconds: elapsed.Seconds(),
		SeedsPerSecond: float64(s.done) / max(elapsed.Seconds(), 1e-9)}
	r.Faults, r.Effects, r.Properties, r.Buggify, r.Unreached = s.cover.lists()
	r.Missed = missedGoals(r)
	if r.Missed == nil {
		r.Missed = []string{}
	}
	r.Strict = s.strict
	partial := interrupted || s.shard.N > 1 || len(s.failures) > 0 || s.processes > 0 || s.exitFailures > 0
	r.StrictFailed = s.strict && !partial && len(r.Missed) > 0
	failed := make([]uint64, len(s.failures))
	for i, f := range s.failures {
		failed[i] = f.seed
		r.Failures = append(r.Failures, failureReport{Seed: f.seed, Headline: f.headline(), Replay: s.replayCommand(f.seed, false)})
	}
	r.FailingSeeds = simsweep.Compact(failed).String()
	if len(failed) == 0 {
		r.FailingSeeds = ""
	}
	return r
}

// summary prints the totals, as text or JSON, and returns the exit code.
func (s *sweep) summary(elapsed time.Duration, interrupted bool) int {
	r := s.report(elapsed, interrupted)
	if s.asJSON {
		enc := json.NewEncoder(s.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	} else {
		s.printSummary(r, elapsed)
	}
	switch {
	case interrupted:
		return exitInterrupted
	case r.NoSeedRan && r.SeedsDone == 0:
		return exitUsage
	case r.Failed > 0 || r.ProcessFailures > 0 || r.ExitFailures > 0 || r.StrictFailed:
		return exitFailed
	}
	return exitPassed
}

func (s *sweep) printSummary(r sweepReport, elapsed time.Duration) {
	w := s.stdout
	if r.NoSeedRan && r.SeedsDone == 0 {
		fmt.Fprintf(w, "simrt sweep: %s ran no seed: does -run %s match a test that calls simtest.Explore?\n", r.Package, r.Test)
		return
	}
	verdict := fmt.Sprintf("%d failed", r.Failed)
	if r.Interrupted {
		fmt.Fprintf(w, "\ninterrupted: ")
		verdict += " so far"
	} else {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "swept %d of %d seeds of %s %s in %v (%.0f seeds/s): %s\n",
		r.SeedsDone, r.Seeds, r.Package, r.Test, elapsed.Round(time.Millisecond), r.SeedsPerSecond, verdict)
	printCoverage(w, r)
	if r.Failed > 0 {
		fmt.Fprintf(w, "failing seeds: %s\nreplay the first: %s\n", r.FailingSeeds, s.replayCommand(r.Failures[0].Seed, true))
	}
	printMissed(w, r)
	if r.ProcessFailures > 0 {
		fmt.Fprintf(w, "%d test processes failed before their first seed (the first is shown above)\n", r.ProcessFailures)
	}
	if r.ExitFailures > 0 {
		procs := fmt.Sprintf("%d test processes", r.ExitFailures)
		if r.ExitFailures == 1 {
			procs = "1 test process"
		}
		fmt.Fprintf(w, "%s failed after their seeds ran (the first is shown above): the sweep fails\n", procs)
	}
}

// printMissed prints the goals the sweep missed and what strict mode made
// of them.
func printMissed(w io.Writer, r sweepReport) {
	if len(r.Missed) == 0 {
		return
	}
	switch {
	case r.StrictFailed:
		fmt.Fprintf(w, "%s missed (-simrt.strict fails the sweep):\n", plural(len(r.Missed), "goal"))
	case r.Strict:
		fmt.Fprintf(w, "%s missed (-simrt.strict does not judge a sweep that ran only part of the seeds):\n", plural(len(r.Missed), "goal"))
	default:
		fmt.Fprintf(w, "%s missed (-- -simrt.strict fails the sweep on them):\n", plural(len(r.Missed), "goal"))
	}
	for _, m := range r.Missed {
		fmt.Fprintf(w, "  %s\n", m)
	}
}

// plural renders n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
