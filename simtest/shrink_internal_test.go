package simtest

import (
	"testing"

	"github.com/simrt/simrt/deterministic/decision"
)

// TestShrinkStreamSynthetic shrinks a stream whose "run" fails when
// decision 30 keeps its value and decision 70 is a fault that is not the
// default: the result must keep those two only, and end at 71.
func TestShrinkStreamSynthetic(t *testing.T) {
	orig := &decision.Stream{}
	for i := range 200 {
		k := decision.KindYield
		if i == 70 {
			k = decision.KindFault
		}
		orig.Decisions = append(orig.Decisions, decision.Decision{Kind: k, Value: uint64(i) * 0x9e3779b97f4a7c15})
	}
	runs := 0
	fails := func(s *decision.Stream) bool {
		runs++
		r := decision.DefaultAfter{Stream: s}
		v30, _ := r.Decide(30, decision.KindYield)
		v70, _ := r.Decide(70, decision.KindFault)
		return v30 == orig.Decisions[30].Value && v70 != decision.KindFault.Default()
	}
	got := ShrinkStream(orig, 0, fails)
	if len(got.Decisions) != 71 || got.NonDefault() != 2 {
		t.Fatalf("shrunk to %d decisions (%d non-default), want 71 (2)", len(got.Decisions), got.NonDefault())
	}
	if got.Decisions[30] != orig.Decisions[30] || got.Decisions[70] != orig.Decisions[70] {
		t.Errorf("shrunk stream lost a needed decision")
	}
	if !fails(got) {
		t.Error("shrunk stream does not fail")
	}
	if runs > 100 { // 8 to truncate, about 70 for ddmin to find two of 70
		t.Errorf("%d runs to shrink 200 decisions to 2", runs)
	}
}

func TestSearchInevitable(t *testing.T) {
	for _, c := range []struct{ n, at int }{{100, 37}, {100, 0}, {100, 100}, {1, 1}, {5, 1}} {
		probes := 0
		got := searchInevitable(c.n, func(p int) bool { probes++; return p >= c.at })
		if got != c.at {
			t.Errorf("n=%d at=%d: got %d", c.n, c.at, got)
		}
		if probes > 9 {
			t.Errorf("n=%d: %d probes", c.n, probes)
		}
	}
}

func TestContinuationsStopEarly(t *testing.T) {
	f, ran := continuations(20, 0.95, 1, func(int) bool { return false })
	if f != 0 || ran != 2 {
		t.Errorf("all passing: %d failed of %d run, want a stop after 2 (19 of 20 needed)", f, ran)
	}
	f, ran = continuations(20, 0.95, 0, func(i int) bool { return i%2 == 0 })
	if f != 10 || ran != 20 {
		t.Errorf("without early stop: %d of %d", f, ran)
	}
	if !reaches(19, 20, 0.95) || reaches(18, 20, 0.95) {
		t.Error("reaches: 19 of 20 is 95%")
	}
	if continuationSeed(5, 0) == 5 || continuationSeed(5, 0) == continuationSeed(5, 1) {
		t.Error("continuation seeds repeat")
	}
}

func TestFailureClass(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"--- FAIL: TestX (0.00s)\n    x_test.go:3: simrt: seed 4 failed at 2ms of simulated time (T) in task \"w1\"\n        panic: lost key 17\n",
			"panic: lost key #"},
		{"    x_test.go:9: got 3\n    x_test.go:3: simrt: seed 4 failed at 2ms of simulated time (T) in task \"node-2\"\n        the test failed (t.Error) inside the simulation\n",
			`the test failed (t.Error) inside the simulation in task "node-#"`},
		{"    x.go:1: simrt: seed 4 failed (the event log is off: replay for the time, task and last events)\n        runtime stalled: 2 tasks\n",
			"runtime stalled: # tasks"},
		{"panic: test timed out after 2m0s\n", "the test timed out"},
		{"--- FAIL: TestX\n    x_test.go:5: boom\n", "the test failed outside the simulation"},
	} {
		if got := failureClass(c.out); got != c.want {
			t.Errorf("failureClass(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}
