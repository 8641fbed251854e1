package nemesis

import (
	"fmt"
	"slices"

	"github.com/simrt/simrt/internal/shrink"
)

// Shrink returns a schedule with a subset of s's events, in order and with
// the same heal, for which fails still reports true, and from which no
// single event can be dropped without fails reporting false (delta
// debugging, Zeller and Hildebrandt's ddmin). fails(s) must be true;
// otherwise Shrink returns s. fails runs a whole simulation with the
// schedule given (see Start), so it must be deterministic.
func Shrink(s Schedule, fails func(Schedule) bool) Schedule {
	s, _ = ShrinkWithin(s, fails, 0)
	return s
}

// ShrinkWithin is Shrink that runs fails at most maxRuns times (no limit
// when maxRuns <= 0), returning the smallest failing schedule found and
// the number of runs made.
func ShrinkWithin(s Schedule, fails func(Schedule) bool, maxRuns int) (Schedule, int) {
	try := func(evs []Event) bool { return fails(Schedule{Events: evs, Heal: s.Heal}) }
	evs, runs := shrink.MinimizeWithin(slices.Clone(s.Events), try, maxRuns)
	return Schedule{Events: evs, Heal: s.Heal}, runs
}

// Summary describes a shrink: "from 47 faults to 2:" and the events left,
// one per line.
func Summary(from, to Schedule) string {
	return fmt.Sprintf("nemesis: shrunk the schedule from %d faults to %d:\n%s", len(from.Events), len(to.Events), to)
}
