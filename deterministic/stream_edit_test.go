package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
)

// TestDefaultStreamIsPlain runs a program that yields, selects, spawns and
// draws, fed nothing but default decisions: it must finish (no rejected
// draw loops), every draw is the first choice, and the recorded stream is
// all defaults.
func TestDefaultStreamIsPlain(t *testing.T) {
	rec := &decision.Stream{}
	var draws []int
	cfg := deterministic.Config{Seed: 7, Replay: decision.DefaultAfter{}, Scheduling: deterministic.Scheduling{YieldProbability: 0.5}, Hooks: deterministic.Hooks{Record: rec}}
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		var hs []*simrt.Handle[int]
		for i := range 4 {
			hs = append(hs, simrt.Spawn(ctx.Child("w"), func(ctx simrt.Context) int {
				ctx.Sleep(0)
				return i
			}))
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		for _, n := range []int{3, 7, 1000} {
			draws = append(draws, ctx.Rand().IntN(n))
		}
	})
	for i, d := range draws {
		if d != 0 {
			t.Errorf("draw %d with default decisions = %d, want 0 (the first choice)", i, d)
		}
	}
	if len(rec.Decisions) == 0 {
		t.Fatal("the run made no decisions")
	}
	if n := rec.NonDefault(); n != 0 {
		t.Errorf("%d of %d recorded decisions are not defaults", n, len(rec.Decisions))
	}
}
