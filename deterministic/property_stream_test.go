package deterministic_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
)

// failAfterDraws runs a simulation whose root draws extra values from its
// generator, spawns a task, and then reaches an Unreachable; it returns the
// *simrt.PropertyError the run failed with.
func failAfterDraws(t *testing.T, cfg deterministic.Config, extra int) *simrt.PropertyError {
	t.Helper()
	var p any
	func() {
		defer func() { p = recover() }()
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
			simrt.Spawn(ctx, func(ctx simrt.Context) int { return 0 }).Await(ctx)
			for range extra {
				ctx.Rand().Uint64()
			}
			simrt.Unreachable(ctx, "the end", "extra", extra)
		})
	}()
	var pe *simrt.PropertyError
	if err, _ := p.(error); !errors.As(err, &pe) {
		t.Fatalf("Start panicked with %v, want a *simrt.PropertyError", p)
	}
	return pe
}

// TestPropertyErrorStreamPosition checks that a failed property carries the
// decision-stream position at which it failed, prints it, and that the
// position is a replay point: replaying that many decisions of the run's
// stream, with another seed after them, fails at the same position.
func TestPropertyErrorStreamPosition(t *testing.T) {
	rec := &decision.Stream{}
	base := failAfterDraws(t, deterministic.Config{Seed: 7, Hooks: deterministic.Hooks{Record: rec}}, 0)
	if base.StreamPosition == 0 || base.StreamPosition > uint64(len(rec.Decisions)) {
		t.Fatalf("stream position %d, want 1..%d (the run's decisions)", base.StreamPosition, len(rec.Decisions))
	}
	if want := fmt.Sprintf("stream position %d)", base.StreamPosition); !strings.Contains(base.Error(), want) {
		t.Errorf("error %q lacks %q", base.Error(), want)
	}
	more := failAfterDraws(t, deterministic.Config{Seed: 7}, 5)
	if more.StreamPosition != base.StreamPosition+5 {
		t.Errorf("five more draws before the failure: stream position %d, want %d", more.StreamPosition, base.StreamPosition+5)
	}
	prefix := &decision.Stream{Decisions: rec.Decisions[:base.StreamPosition]}
	again := failAfterDraws(t, deterministic.Config{Seed: 99, Replay: prefix}, 0)
	if again.StreamPosition != base.StreamPosition || again.Position != base.Position {
		t.Errorf("replaying the first %d decisions: stream position %d, step %d; want %d, %d",
			base.StreamPosition, again.StreamPosition, again.Position, base.StreamPosition, base.Position)
	}
}
