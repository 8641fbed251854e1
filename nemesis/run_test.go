package nemesis_test

import (
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/nemesis"
)

// A clock jump the node refuses (one that would take its clock before the
// Unix epoch) is an error of the event, in its Effect and in the report,
// not a fault silently skipped; the jump changes nothing.
func TestRefusedClockJumpIsReported(t *testing.T) {
	s, err := nemesis.ParseSchedule([]byte("100ms clock-jump {n1} -2s for 1s\n3s heal\n"))
	if err != nil {
		t.Fatal(err)
	}
	runHB(t, 1, nemesis.Config{}, &s, func(ctx *deterministic.Context, m *nemesis.Nemesis) {
		ctx.Sleep(200 * time.Millisecond)
		f := m.Effects()
		if len(f) != 1 || len(f[0].Errs) != 1 || !strings.Contains(f[0].Errs[0].Error(), "JumpClock(-2s) of node n1") {
			t.Fatalf("effects = %v, want the jump's error", f)
		}
		if !strings.Contains(m.Report(), "[error: deterministic: JumpClock(-2s)") {
			t.Errorf("report does not show the error:\n%s", m.Report())
		}
		if skew := nemesis.ClusterOf(ctx).Nodes[0].Skew(); skew != 0 {
			t.Errorf("n1's skew = %v after a refused jump, want 0", skew)
		}
	})
}

// A backward clock step or offset that Draw draws fits in the time the
// fault starts at, so that a node clock that started at the Unix epoch
// (deterministic's default StartTime) can take it: applied, every one
// succeeds, none is refused with deterministic.ErrClockRange.
func TestDrawnBackwardClockFaultsFitAfterTheEpoch(t *testing.T) {
	cfg := nemesis.Config{NoSwarm: true, Heal: 4 * time.Second, MaxJump: 5 * time.Second, MaxOffset: 5 * time.Second,
		Faults: []nemesis.Fault{{Kind: nemesis.ClockJump}, {Kind: nemesis.ClockOffset}}}
	backward := 0
	for seed := range uint64(20) {
		_, s, _ := runHB(t, seed, cfg, nil, func(ctx *deterministic.Context, m *nemesis.Nemesis) {
			m.WaitHealed(ctx)
			for _, f := range m.Effects() {
				if len(f.Errs) > 0 {
					t.Errorf("seed %d: %v", seed, f)
				}
			}
		})
		for _, e := range s.Events {
			if e.Delay < 0 {
				backward++
				if -e.Delay > e.At {
					t.Errorf("seed %d: %v steps back %v at %v", seed, e, -e.Delay, e.At)
				}
			}
		}
	}
	if backward == 0 {
		t.Fatal("no backward clock fault drawn")
	}
}
