package nemesis

import (
	"errors"
	"github.com/simrt/simrt/deterministic"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plantedFails runs s against a fake cluster whose planted bug shows only
// when n2 is killed while a cut or isolation touches it.
func plantedFails(t *testing.T, s Schedule) bool {
	c := newFake(5)
	bug := false
	c.onKill = func(n *fakeNode) {
		if n.name == "n2" && c.partitioned(n.host) {
			bug = true
		}
	}
	runFake(t, c, s, nil)
	return bug
}

func TestShrinkPlantedFailure(t *testing.T) {
	cfg := Config{NoSwarm: true, Heal: 60 * time.Second, Faults: []Fault{
		{Kind: Partition}, {Kind: Isolate}, {Kind: Kill}, {Kind: Pause}, {Kind: ClockDrift}, {Kind: Latency}, {Kind: DiskFail}, {Kind: Clog}}}
	var s Schedule
	for seed := uint64(0); ; seed++ {
		if seed == 50 {
			t.Fatal("no seed of 50 shows the planted bug")
		}
		var err error
		if s, err = Draw(SeedRand(seed), five, cfg); err != nil {
			t.Fatal(err)
		}
		if plantedFails(t, s) {
			break
		}
	}
	runs := 0
	small := Shrink(s, func(s Schedule) bool { runs++; return plantedFails(t, s) })
	t.Logf("%s(%d runs)", Summary(s, small), runs)
	if len(small.Events) > 3 || len(small.Events) == 0 {
		t.Fatalf("shrunk to %d events:\n%s", len(small.Events), small)
	}
	if len(small.Events) >= len(s.Events) {
		t.Fatalf("nothing shrunk: %d events", len(s.Events))
	}
	var kill bool
	for _, e := range small.Events {
		kill = kill || e.Kind == Kill && e.Nodes[0] == "n2"
	}
	if !kill {
		t.Errorf("the shrunk schedule does not kill n2:\n%s", small)
	}
	path := filepath.Join(t.TempDir(), "min.schedule")
	if err := small.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if !plantedFails(t, back) {
		t.Fatalf("the shrunk schedule read back from its file passes:\n%s", back)
	}
	if sum := Summary(s, small); !strings.Contains(sum, "from ") || !strings.Contains(sum, small.Events[0].String()) {
		t.Errorf("summary: %s", sum)
	}
}

func TestShrinkWithinBudget(t *testing.T) {
	s, _ := Draw(SeedRand(1), five, everything)
	calls := 0
	got, runs := ShrinkWithin(s, func(Schedule) bool { calls++; return true }, 3)
	if runs > 3 || calls > 3 {
		t.Fatalf("budget 3, ran %d (%d calls)", runs, calls)
	}
	if got.Heal != s.Heal {
		t.Fatalf("heal changed: %v", got.Heal)
	}
	if got := Shrink(s, func(Schedule) bool { return false }); len(got.Events) != len(s.Events) {
		t.Fatalf("a schedule that does not fail shrank to %d events", len(got.Events))
	}
}

func TestShrinkRunOnFake(t *testing.T) {
	cfg := Config{NoSwarm: true, Heal: 60 * time.Second, Faults: []Fault{{Kind: Partition}, {Kind: Kill}, {Kind: Pause}, {Kind: DiskFull}}}
	root := func(ctx *deterministic.Context, s Schedule) error {
		c := newFake(5)
		bug := false
		c.onKill = func(n *fakeNode) { bug = bug || n.name == "n2" && c.partitioned(n.host) }
		m, err := Start(ctx, c.cluster(), s)
		if err != nil {
			return err
		}
		m.WaitHealed(ctx)
		if bug {
			return errors.New("planted")
		}
		return nil
	}
	dcfg := deterministic.Config{Seed: 4, Hooks: deterministic.Hooks{LogHandler: slog.DiscardHandler}}
	var s Schedule
	for seed := uint64(0); ; seed++ {
		if seed == 50 {
			t.Fatal("no failing seed")
		}
		s, _ = Draw(SeedRand(seed), five, cfg)
		if Failing(dcfg, func(ctx *deterministic.Context) error { return root(ctx, s) }) != "" {
			break
		}
	}
	small, runs, why, err := ShrinkRun(dcfg, s, 0, root)
	if err != nil {
		t.Fatal(err)
	}
	if why != "planted" {
		t.Errorf("ShrinkRun says the runs failed with %q, want planted", why)
	}
	if len(small.Events) > 3 || runs < 2 {
		t.Fatalf("%d runs: %s", runs, Summary(s, small))
	}
	if _, _, _, err := ShrinkRun(dcfg, Schedule{Heal: time.Second}, 0, root); err == nil || !strings.Contains(err.Error(), "does not fail") {
		t.Fatalf("ShrinkRun of a passing schedule: %v", err)
	}
	if why := Failing(dcfg, func(ctx *deterministic.Context) error { panic("boom\nat line 2") }); why != "panic: boom" {
		t.Fatalf("a panicking run fails with %q, want panic: boom", why)
	}
}

// TestShrinkRunKeepsTheSameFailure: a candidate that fails for another
// reason is not kept. The root fails "planted" with all of its faults,
// and "other" with any fewer: the shrink must keep every fault (before,
// with a bool Failing, it shrank to nothing, since any failure counted).
func TestShrinkRunKeepsTheSameFailure(t *testing.T) {
	s, err := Draw(SeedRand(1), five, Config{NoSwarm: true, Heal: 60 * time.Second, Faults: []Fault{{Kind: Partition}, {Kind: Kill}}})
	if err != nil || len(s.Events) < 2 {
		t.Fatalf("draw: %v, %d events", err, len(s.Events))
	}
	n := len(s.Events)
	root := func(_ *deterministic.Context, c Schedule) error {
		if len(c.Events) == n {
			return errors.New("planted")
		}
		return errors.New("other")
	}
	small, _, why, err := ShrinkRun(deterministic.Config{Seed: 1}, s, 0, root)
	if err != nil {
		t.Fatal(err)
	}
	if why != "planted" || len(small.Events) != n {
		t.Fatalf("shrank to %d of %d faults (%q): a different failure was kept", len(small.Events), n, why)
	}
}
