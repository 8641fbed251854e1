package nemesis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/internal/shrink"
)

// Shrink returns a schedule with a subset of s's events, in order and with
// the same heal, for which fails still reports true, and from which no
// single event can be dropped without fails reporting false (delta
// debugging, Zeller and Hildebrandt's ddmin). fails(s) must be true;
// otherwise Shrink returns s. fails runs a whole simulation with the
// schedule given (see Start), so it must be deterministic. Shrink panics
// if fails is nil.
func Shrink(s Schedule, fails func(Schedule) bool) Schedule {
	mustFails(fails == nil, "Shrink")
	s, _ = ShrinkWithin(s, fails, 0)
	return s
}

// ShrinkWithin is Shrink that runs fails at most maxRuns times (no limit
// when maxRuns <= 0), returning the smallest failing schedule found and
// the number of runs made. It panics if fails is nil.
func ShrinkWithin(s Schedule, fails func(Schedule) bool, maxRuns int) (Schedule, int) {
	mustFails(fails == nil, "ShrinkWithin")
	try := func(evs []Event) bool { return fails(Schedule{Events: evs, Heal: s.Heal}) }
	evs, runs := shrink.MinimizeWithin(slices.Clone(s.Events), try, maxRuns)
	return Schedule{Events: evs, Heal: s.Heal}, runs
}

// Summary describes a shrink: "from 47 faults to 2:" and the events left,
// one per line.
func Summary(from, to Schedule) string {
	return fmt.Sprintf("nemesis: shrunk the schedule from %d faults to %d:\n%s", len(from.Events), len(to.Events), to)
}

// Failing runs a simulation of cfg with root and says why it failed: the
// first line of root's error, or "panic: " and the first line of what the
// run panicked with (a task's panic, a stall, a timeout); "" when it
// passed. It is the run of ShrinkRun for a schedule-driven root: call it
// with a root that runs the candidate schedule, and keep a candidate when
// it fails for the same reason, not for any reason.
func Failing(cfg deterministic.Config, root func(ctx *deterministic.Context) error) (why string) {
	defer func() {
		if r := recover(); r != nil {
			why = "panic: " + firstLine(fmt.Sprint(r))
		}
	}()
	var err error
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) { err = root(ctx) })
	if err == nil {
		return ""
	}
	if why = firstLine(err.Error()); why == "" {
		why = "an error with no text"
	}
	return why
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// ShrinkRun shrinks s for a simulation: each candidate runs as a fresh
// simulation of cfg (the same seed) with root given the candidate, and is
// kept when it fails for the same reason as s (Failing's answer). It
// returns the shrunk schedule, the number of simulations run, at most
// maxRuns (no limit when maxRuns <= 0), and why the runs failed. If s
// itself does not fail, ShrinkRun returns an error. It panics if root is
// nil.
func ShrinkRun(cfg deterministic.Config, s Schedule, maxRuns int, root func(ctx *deterministic.Context, s Schedule) error) (Schedule, int, string, error) {
	mustFails(root == nil, "ShrinkRun")
	why := func(s Schedule) string {
		return Failing(cfg, func(ctx *deterministic.Context) error { return root(ctx, s) })
	}
	want := why(s)
	if want == "" {
		return s, 1, "", fmt.Errorf("nemesis: seed %d does not fail with the schedule to shrink (%d faults)", cfg.Seed, len(s.Events))
	}
	small, runs := ShrinkWithin(s, func(c Schedule) bool { return why(c) == want }, maxRuns-1)
	return small, runs + 1, want, nil
}

// mustFails panics, naming fn, if the function fn was given is nil.
func mustFails(isNil bool, fn string) {
	if isNil {
		panic("nemesis." + fn + " called with a nil function")
	}
}
