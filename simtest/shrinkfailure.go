package simtest

import (
	"fmt"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
)

// A Reproduction is what makes a failing run: the fault schedule the
// nemesis ran (no events: none) and the decisions replayed, with the
// default past their end (decision.DefaultAfter); a nil Stream is the
// current run's own decisions (its seed, or what it replayed).
type Reproduction struct {
	Schedule nemesis.Schedule
	Stream   *decision.Stream
}

// ShrinkRunFunc runs a candidate and says why it failed ("" when it
// passed), in the terms the caller compares failures in (a property's
// name, the first line of an error with its numbers blanked out): a
// candidate is kept only when it fails for the same reason as the
// original run. fresh > 0 asks for the fresh'th fresh variant of the
// current run (another seed, the schedule forced; only with a nil
// Stream); when that variant fails it becomes the current run, as in
// nemesis.Fails. With record set, run returns the decision stream the run
// made, every decision, so that replaying it is that run exactly.
type ShrinkRunFunc func(r Reproduction, fresh int, record bool) (why string, rec *decision.Stream)

// ShrinkOptions bounds ShrinkFailure.
type ShrinkOptions struct {
	// MaxRuns is the most runs the shrink may make (at least 1: the
	// record of the run with the shrunk schedule); 0 means
	// defaultShrinkRuns.
	MaxRuns int
	// Fresh is how many fresh variants of the run the schedule shrink
	// tries before it keeps a fault (nemesis.DeepOptions.Fresh); 0 tries
	// none, which is right when another seed is another test.
	Fresh int
	// SmallSchedule, when > 0, skips the stream step while more faults
	// than that are left: with many faults the runs are better spent on
	// them, so the rest of the budget goes to the faults, with eight
	// times Fresh fresh variants.
	SmallSchedule int
}

// Shrunk is the result of ShrinkFailure.
type Shrunk struct {
	// From is the failing run's schedule and recorded stream, To the
	// shrunk run's: To.Stream is its record, every decision it made.
	From, To Reproduction
	// Runs is how many runs the shrink made.
	Runs int
	// Steps says what each step did, one line each.
	Steps []string
}

// Summary is "from N faults and M decisions (k not the default) to n and
// m (j)".
func (s *Shrunk) Summary() string {
	return fmt.Sprintf("from %d faults and %s decisions (%s not the default) to %d and %s (%s)",
		len(s.From.Schedule.Events), commas(len(s.From.Stream.Decisions)), commas(s.From.Stream.NonDefault()),
		len(s.To.Schedule.Events), commas(len(s.To.Stream.Decisions)), commas(s.To.Stream.NonDefault()))
}

// Shares of ShrinkFailure's budget: the schedule goes first with most of
// it, the stream gets most of the rest, and the schedule a last pass with
// the plainer stream.
const (
	scheduleShare = 0.7
	streamShare   = 0.8
)

// ShrinkFailure shrinks whatever made a run fail, whether the faults of
// the nemesis or the decisions of the run: first the fault schedule
// (nemesis.ShrinkDeep: drop faults, make the rest simpler, with o.Fresh
// fresh variants), then the decision stream of the run with the faults
// left (ShrinkStream: a shorter prefix, more defaults), then the schedule
// once more with that stream, since a plainer run may need fewer faults.
// Every candidate is kept only if run says it fails for the reason why.
// from is the failing run: its schedule and its recorded stream (the
// measure of the result, not replayed: the current run is run's own).
// A stream candidate is kept only when the run it makes is smaller than
// the one it replaces: no more decisions, and fewer of them, or fewer
// that are not the default (so every stream candidate is recorded);
// otherwise the stream is left as it was. The
// result is always a run that fails the same way, recorded.
func ShrinkFailure(from Reproduction, why string, o ShrinkOptions, run ShrinkRunFunc) (*Shrunk, error) {
	if o.MaxRuns <= 0 {
		o.MaxRuns = defaultShrinkRuns
	}
	o.MaxRuns = max(o.MaxRuns, 1)
	r := &Shrunk{From: from}
	spent := func() bool { return r.Runs >= o.MaxRuns }
	fails := func(c Reproduction, fresh int) bool {
		if spent() {
			return false
		}
		r.Runs++
		got, _ := run(c, fresh, false)
		return got == why
	}
	record := func(c Reproduction) (*decision.Stream, error) {
		r.Runs++
		got, rec := run(c, 0, true)
		if got != why {
			return nil, fmt.Errorf("the shrunk run failed otherwise when recorded (%q, want %q): the run is not deterministic", got, why)
		}
		return rec, nil
	}
	faults := func(s nemesis.Schedule, stream *decision.Stream, budget, fresh int) nemesis.Schedule {
		if len(s.Events) == 0 || budget <= 0 {
			return s
		}
		at := r.Runs
		small, _ := nemesis.ShrinkDeep(s, func(c nemesis.Schedule, f int) bool {
			return fails(Reproduction{Schedule: c, Stream: stream}, f)
		}, nemesis.DeepOptions{MaxRuns: budget, Fresh: fresh})
		r.Steps = append(r.Steps, fmt.Sprintf("faults: %d -> %d (%d runs)", len(s.Events), len(small.Events), r.Runs-at))
		return small
	}

	// 1. The schedule, on the current run's own decisions.
	sched := faults(from.Schedule, nil, min(int(float64(o.MaxRuns)*scheduleShare), o.MaxRuns-1), o.Fresh)
	if o.SmallSchedule > 0 && len(sched.Events) > o.SmallSchedule {
		sched = faults(sched, nil, o.MaxRuns-r.Runs-1, 8*o.Fresh)
	}
	rec, err := record(Reproduction{Schedule: sched})
	if err != nil {
		return nil, err
	}
	cur := Reproduction{Schedule: sched, Stream: rec}

	// 2. The stream of the run with those faults.
	switch left := int(float64(o.MaxRuns-r.Runs-1) * streamShare); {
	case o.SmallSchedule > 0 && len(sched.Events) > o.SmallSchedule:
		r.Steps = append(r.Steps, fmt.Sprintf("stream: not shrunk (more than %d faults left)", o.SmallSchedule))
	case left <= 0:
		r.Steps = append(r.Steps, "stream: not shrunk (no runs left)")
	default:
		at := r.Runs
		// A candidate counts only if its run is no longer than the one it
		// would replace: defaults past a candidate's end can make a run
		// longer (a task that no longer yields runs on), which is no
		// smaller reproduction.
		cand := ShrinkStream(rec, left, func(s *decision.Stream) bool {
			if spent() {
				return false
			}
			r.Runs++
			got, made := run(Reproduction{Schedule: sched, Stream: s}, 0, true)
			return got == why && made != nil && len(made.Decisions) <= len(rec.Decisions)
		})
		var smaller *decision.Stream
		if cand.NonDefault() < rec.NonDefault() || len(cand.Decisions) < len(rec.Decisions) {
			if smaller, err = record(Reproduction{Schedule: sched, Stream: cand}); err != nil {
				return nil, err
			}
		}
		switch {
		case smaller != nil && isSmaller(smaller, rec):
			r.Steps = append(r.Steps, fmt.Sprintf("stream: %s decisions (%s not the default) -> %s (%s) (%d runs)",
				commas(len(rec.Decisions)), commas(rec.NonDefault()), commas(len(smaller.Decisions)), commas(smaller.NonDefault()), r.Runs-at))
			cur.Stream = smaller
		case smaller != nil:
			r.Steps = append(r.Steps, fmt.Sprintf("stream: not shrunk: the candidate's run made %s decisions (%s not the default), not fewer than %s (%s); kept the run's own (%d runs)",
				commas(len(smaller.Decisions)), commas(smaller.NonDefault()), commas(len(rec.Decisions)), commas(rec.NonDefault()), r.Runs-at))
		default:
			r.Steps = append(r.Steps, fmt.Sprintf("stream: not shrunk: no smaller stream fails the same way (%d runs)", r.Runs-at))
		}
	}

	// 3. The schedule again, on that stream.
	if cur.Stream != rec {
		s2 := faults(sched, cur.Stream, o.MaxRuns-r.Runs-1, 0)
		if len(s2.Events) < len(sched.Events) {
			// Fewer faults: the run is another, record it.
			rec2, err := record(Reproduction{Schedule: s2, Stream: cur.Stream})
			if err != nil {
				return nil, err
			}
			cur = Reproduction{Schedule: s2, Stream: rec2}
		}
	}
	r.To = cur
	return r, nil
}

// isSmaller reports whether stream a is smaller than b: no more decisions,
// and fewer of them or fewer that are not the default.
func isSmaller(a, b *decision.Stream) bool {
	return len(a.Decisions) <= len(b.Decisions) &&
		(len(a.Decisions) < len(b.Decisions) || a.NonDefault() < b.NonDefault())
}

// commas renders n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
