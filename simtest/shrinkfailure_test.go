package simtest_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
	"github.com/simrt/simrt/simtest"
)

// fakeStream returns a stream of n decisions, all defaults or none.
func fakeStream(n int, defaults bool) *decision.Stream {
	s := &decision.Stream{}
	for i := range n {
		v := uint64(i) + 0x1000
		if defaults {
			v = decision.KindRand.Default()
		}
		s.Decisions = append(s.Decisions, decision.Decision{Kind: decision.KindRand, Value: v})
	}
	return s
}

// fakeFailure is a run that fails ("planted") when its schedule holds
// the fault at 2s, whatever its decisions, and ("other") when it holds
// none at all; replaying a stream candidate makes a run of replayed
// decisions (a run made plainer can run longer).
func fakeFailure(recorded, replayed *decision.Stream) simtest.ShrinkRunFunc {
	return func(r simtest.Reproduction, _ int, record bool) (string, *decision.Stream) {
		why := ""
		switch {
		case len(r.Schedule.Events) == 0:
			why = "other"
		case slices.ContainsFunc(r.Schedule.Events, func(e nemesis.Event) bool { return e.At == 2*time.Second }):
			why = "planted"
		}
		rec := recorded
		if r.Stream != nil {
			rec = replayed
		}
		return why, rec
	}
}

func fakeSchedule() nemesis.Schedule {
	s := nemesis.Schedule{Heal: 10 * time.Second}
	for i := range 5 {
		s.Events = append(s.Events, nemesis.Event{At: time.Duration(i+1) * time.Second, Kind: nemesis.Pause, Nodes: []string{"n1"}, For: 100 * time.Millisecond})
	}
	return s
}

// TestShrinkFailureNeverReportsALongerStream: a stream candidate whose run
// makes more decisions than the run it would replace is not kept: the
// shrink keeps the run's own stream and says why. (Before, the saved
// stream was the candidate's run whatever its length: 940 decisions
// "shrank" to 940, 9,958 to 11,529.)
func TestShrinkFailureNeverReportsALongerStream(t *testing.T) {
	orig := fakeStream(10, false)
	longer := fakeStream(20, true)
	res, err := simtest.ShrinkFailure(simtest.Reproduction{Schedule: fakeSchedule(), Stream: orig}, "planted",
		simtest.ShrinkOptions{MaxRuns: 100}, fakeFailure(orig, longer))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.To.Schedule.Events) != 1 || res.To.Schedule.Events[0].At != 2*time.Second {
		t.Errorf("shrunk schedule %v, want the fault at 2s alone", res.To.Schedule)
	}
	if res.To.Stream != orig {
		t.Errorf("the result's stream has %d decisions (%d not the default), want the run's own 10", len(res.To.Stream.Decisions), res.To.Stream.NonDefault())
	}
	steps := strings.Join(res.Steps, "\n")
	if !strings.Contains(steps, "stream: not shrunk: no smaller stream fails the same way") {
		t.Errorf("steps:\n%s", steps)
	}
	if sum := res.Summary(); sum != "from 5 faults and 10 decisions (10 not the default) to 1 and 10 (10)" {
		t.Errorf("summary %q", sum)
	}

	// A candidate whose run is smaller is kept.
	shorter := fakeStream(4, true)
	res, err = simtest.ShrinkFailure(simtest.Reproduction{Schedule: fakeSchedule(), Stream: orig}, "planted",
		simtest.ShrinkOptions{MaxRuns: 100}, fakeFailure(orig, shorter))
	if err != nil {
		t.Fatal(err)
	}
	if res.To.Stream != shorter || len(res.To.Schedule.Events) != 1 {
		t.Errorf("got %s, want the shorter stream and one fault", res.Summary())
	}
}

// TestShrinkFailureKeepsTheSameFailure: dropping every fault fails too,
// but otherwise ("other"): the fault that makes the planted failure
// stays.
func TestShrinkFailureKeepsTheSameFailure(t *testing.T) {
	orig := fakeStream(3, false)
	res, err := simtest.ShrinkFailure(simtest.Reproduction{Schedule: fakeSchedule(), Stream: orig}, "planted",
		simtest.ShrinkOptions{MaxRuns: 100}, fakeFailure(orig, orig))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.To.Schedule.Events) != 1 {
		t.Errorf("shrunk to %v", res.To.Schedule)
	}
}
