package simrt_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// TestPropertyArgumentsPanicAtTheCall: a property function or Buggify
// given a nil Context panics at the call, naming the function, in both
// runtimes (it was a nil dereference).
func TestPropertyArgumentsPanicAtTheCall(t *testing.T) {
	onBothRuntimes(t, func(t *testing.T, ctx simrt.Context) {
		cases := []struct {
			want string
			call func()
		}{
			{"simrt: Always called with a nil Context", func() { simrt.Always(nil, true, "m") }},
			{"simrt: AlwaysOrUnreachable called with a nil Context", func() { simrt.AlwaysOrUnreachable(nil, true, "m") }},
			{"simrt: Sometimes called with a nil Context", func() { simrt.Sometimes(nil, true, "m") }},
			{"simrt: Reachable called with a nil Context", func() { simrt.Reachable(nil, "m") }},
			{"simrt: Unreachable called with a nil Context", func() { simrt.Unreachable(nil, "m") }},
			{"simrt: Buggify called with a nil Context", func() { simrt.Buggify(nil, "s") }},
		}
		for _, c := range cases {
			if got := panicText(c.call); got != c.want {
				t.Errorf("panic = %q, want %q", got, c.want)
			}
		}
		simrt.Always(ctx, true, "a constant message") // a good call still passes
	})
}

// An empty property message or Buggify site name panics at the call in a
// simulation, naming the function; production never panics on it.
func TestEmptyPropertyMessage(t *testing.T) {
	calls := []struct {
		want string
		call func(ctx simrt.Context)
	}{
		{"simrt: Always called with an empty message (the message is the property's identity)", func(ctx simrt.Context) { simrt.Always(ctx, true, "") }},
		{"simrt: Sometimes called with an empty message (the message is the property's identity)", func(ctx simrt.Context) { simrt.Sometimes(ctx, true, "") }},
		{"simrt: Reachable called with an empty message (the message is the property's identity)", func(ctx simrt.Context) { simrt.Reachable(ctx, "") }},
		{"simrt: Buggify called with an empty site name (the name is the site's identity)", func(ctx simrt.Context) { simrt.Buggify(ctx, "") }},
	}
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		for _, c := range calls {
			if got := panicText(func() { c.call(ctx) }); got != c.want {
				t.Errorf("simulation: panic = %q, want %q", got, c.want)
			}
		}
	})
	if _, err := production().Start(func(ctx simrt.Context) {
		for _, c := range calls {
			if got := panicText(func() { c.call(ctx) }); got != "" {
				t.Errorf("production: panic %q, want none", got)
			}
		}
		simrt.Always(ctx, false, "") // logged, never a panic
	}); err != nil {
		t.Errorf("realtime Start: %v", err)
	}
}
