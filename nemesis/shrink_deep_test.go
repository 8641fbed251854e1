package nemesis

import (
	"slices"
	"testing"
	"time"
)

// cutsOff reports whether e cuts node n off from some other node at t.
func cutsOff(e Event, n string, t time.Duration) bool {
	if t < e.At || t >= e.At+e.For {
		return false
	}
	switch e.Kind {
	case Isolate:
		return e.Nodes[0] == n
	case Partition, Bridge:
		return slices.Contains(e.Nodes, n) || slices.Contains(e.Other, n)
	}
	return false
}

// shortCutFails is a planted failure that needs n2 cut off at 1.1s and
// back by 1.5s, or, when the cut lasts past 1.5s, n3 down at 1.5s too: a
// long partition needs a second fault that a short one does not.
func shortCutFails(s Schedule) bool {
	for _, e := range s.Events {
		if !cutsOff(e, "n2", 1100*time.Millisecond) {
			continue
		}
		if !cutsOff(e, "n2", 1500*time.Millisecond) {
			return true
		}
		for _, k := range s.Events {
			if k.Kind == Kill && k.Nodes[0] == "n3" && k.At <= 1500*time.Millisecond && 1500*time.Millisecond < k.At+k.For {
				return true
			}
		}
	}
	return false
}

var shortCutSchedule = Schedule{Heal: 6 * time.Second, Events: []Event{
	{At: 300 * time.Millisecond, Kind: Loss, Nodes: []string{"n1"}, Rate: 0.2, For: time.Second},
	{At: time.Second, Kind: Partition, Nodes: []string{"n2", "n4"}, Other: []string{"n1", "n3", "n5"}, For: 800 * time.Millisecond},
	{At: 1200 * time.Millisecond, Kind: Kill, Nodes: []string{"n3"}, For: time.Second},
	{At: 2 * time.Second, Kind: ClockJump, Nodes: []string{"n5"}, Delay: -time.Second, For: time.Second},
}}

// TestShrinkDeepSimplifies: delta debugging alone leaves the long
// partition and the kill it needs; ShrinkDeep shortens the partition,
// which makes the kill redundant, and narrows it to the isolation of n2.
func TestShrinkDeepSimplifies(t *testing.T) {
	s := shortCutSchedule
	if !shortCutFails(s) {
		t.Fatal("the planted schedule does not fail")
	}
	old := Shrink(s, shortCutFails)
	if len(old.Events) != 2 {
		t.Fatalf("Shrink left %d faults, want the partition and the kill:\n%s", len(old.Events), old)
	}
	small, runs := ShrinkDeep(s, func(s Schedule, fresh int) bool { return fresh == 0 && shortCutFails(s) }, DeepOptions{})
	t.Logf("%s(%d runs)", Summary(s, small), runs)
	if len(small.Events) != 1 {
		t.Fatalf("ShrinkDeep left %d faults, want 1:\n%s", len(small.Events), small)
	}
	e := small.Events[0]
	if e.Kind != Isolate || e.Nodes[0] != "n2" || e.For >= 800*time.Millisecond {
		t.Errorf("ShrinkDeep left %s, want a short isolate of n2", e)
	}
	if !shortCutFails(small) {
		t.Errorf("the result does not fail:\n%s", small)
	}
	if err := small.Validate(); err != nil {
		t.Error(err)
	}
	again, runs2 := ShrinkDeep(s, func(s Schedule, fresh int) bool { return fresh == 0 && shortCutFails(s) }, DeepOptions{})
	if again.String() != small.String() || runs2 != runs {
		t.Errorf("not deterministic: %d runs then %d\n%s\n%s", runs, runs2, small, again)
	}
}

// TestShrinkDeepReseeds: the failure needs faults a and b on the first
// run, and only a on some other runs (a fresh variant whose number is 3
// mod 4). With fresh variants ShrinkDeep drops b and keeps the variant;
// without, b stays.
func TestShrinkDeepReseeds(t *testing.T) {
	a := Event{At: time.Second, Kind: Pause, Nodes: []string{"n1"}, For: time.Second}
	b := Event{At: 2 * time.Second, Kind: Kill, Nodes: []string{"n2"}, For: time.Second}
	c := Event{At: 3 * time.Second, Kind: DiskFail, Nodes: []string{"n3"}, For: time.Second}
	s := Schedule{Heal: 6 * time.Second, Events: []Event{a, b, c}}
	has := func(s Schedule, k Kind) bool {
		return slices.ContainsFunc(s.Events, func(e Event) bool { return e.Kind == k })
	}
	shrink := func(fresh int) (Schedule, int, int) {
		current := 0
		var tried []int
		small, runs := ShrinkDeep(s, func(s Schedule, f int) bool {
			v := current
			if f != 0 {
				tried = append(tried, f)
				v = f
			}
			fails := has(s, Pause) && (has(s, Kill) || v%4 == 3)
			if fails && f != 0 {
				current = f
			}
			return fails
		}, DeepOptions{Fresh: fresh})
		if !slices.IsSorted(tried) || len(slices.Compact(slices.Clone(tried))) != len(tried) {
			t.Errorf("fresh numbers %v: want each once, increasing", tried)
		}
		return small, runs, current
	}
	small, runs, current := shrink(0)
	if len(small.Events) != 2 || current != 0 {
		t.Fatalf("without fresh variants: %d faults on variant %d, want 2 on 0:\n%s", len(small.Events), current, small)
	}
	small, runs, current = shrink(4)
	t.Logf("%s(%d runs, variant %d)", Summary(s, small), runs, current)
	if len(small.Events) != 1 || small.Events[0].Kind != Pause || current%4 != 3 {
		t.Fatalf("with 4 fresh variants: %d faults on variant %d, want the pause alone on a variant 3 mod 4:\n%s", len(small.Events), current, small)
	}
}

// TestShrinkDeepBudget: ShrinkDeep runs at most MaxRuns simulations, and a
// schedule that does not fail comes back whole.
func TestShrinkDeepBudget(t *testing.T) {
	s := shortCutSchedule
	for _, max := range []int{1, 5, 17} {
		calls := 0
		got, runs := ShrinkDeep(s, func(Schedule, int) bool { calls++; return true }, DeepOptions{MaxRuns: max, Fresh: 3})
		if runs != calls || runs > max {
			t.Errorf("budget %d: %d runs, %d calls", max, runs, calls)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("budget %d: %v", max, err)
		}
	}
	got, _ := ShrinkDeep(s, func(Schedule, int) bool { return false }, DeepOptions{Fresh: 2})
	if got.String() != s.String() {
		t.Errorf("a schedule that does not fail shrank:\n%s", got)
	}
}

// TestSimpler: every simpler variant is a valid event before the heal,
// differs from the original, and the narrowing comes first.
func TestSimpler(t *testing.T) {
	heal := 6 * time.Second
	evs := []Event{
		{At: time.Second, Kind: Partition, Nodes: []string{"n1", "n2"}, Other: []string{"n3", "n4", "n5"}, For: time.Second},
		{At: time.Second, Kind: Bridge, Nodes: []string{"n1", "n2", "n3"}, Other: []string{"n3", "n4", "n5"}, For: time.Second},
		{At: time.Second, Kind: PowerLoss, Nodes: []string{"n1", "n2", "n3"}, For: time.Second},
		{At: time.Second, Kind: ClockJump, Nodes: []string{"n1"}, Delay: -900 * time.Millisecond, For: time.Second},
		{At: time.Second, Kind: Latency, Nodes: []string{"n1"}, Delay: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, For: time.Second},
		{At: time.Second, Kind: Loss, Nodes: []string{"n1"}, Rate: 0.3, For: time.Second},
		{At: time.Second, Kind: ClockDrift, Nodes: []string{"n1"}, Rate: -0.3, For: time.Second},
		{At: time.Second, Kind: DiskSlow, Nodes: []string{"n1"}, Delay: 20 * time.Millisecond, For: time.Second},
		{At: 5900 * time.Millisecond, Kind: Kill, Nodes: []string{"n1"}, For: time.Second},
		{At: time.Second, Kind: Kill, Nodes: []string{"n1"}, For: time.Millisecond},
	}
	wantFirst := map[Kind]Kind{Partition: Isolate, Bridge: Isolate, PowerLoss: PowerOff}
	for _, e := range evs {
		vs := Simpler(e, heal)
		if k, ok := wantFirst[e.Kind]; ok && (len(vs) == 0 || vs[0].Kind != k) {
			t.Errorf("%s: first variant %v, want a %s", e, vs, k)
		}
		for _, v := range vs {
			if err := (Schedule{Heal: heal, Events: []Event{v}}).Validate(); err != nil {
				t.Errorf("%s: variant %s: %v", e, v, err)
			}
			if sameEvent(v, e) {
				t.Errorf("%s: a variant is the event itself", e)
			}
		}
	}
	if vs := Simpler(evs[len(evs)-1], heal); len(vs) != 0 {
		t.Errorf("a 1ms kill has simpler variants: %v", vs)
	}
}
