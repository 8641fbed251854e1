package simrt_test

import (
	"testing"

	"github.com/simrt/simrt"
)

// TestPropertyArgumentsPanicAtTheCall: a property function or Buggify
// given a nil Context, an empty message or an empty site name panics at
// the call, naming the function, in both runtimes (a nil Context was a nil
// dereference; an empty message was accepted as a property's identity).
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
			{"simrt: Always called with an empty message (the message is the property's identity)", func() { simrt.Always(ctx, true, "") }},
			{"simrt: Sometimes called with an empty message (the message is the property's identity)", func() { simrt.Sometimes(ctx, true, "") }},
			{"simrt: Reachable called with an empty message (the message is the property's identity)", func() { simrt.Reachable(ctx, "") }},
			{"simrt: Buggify called with an empty site name (the name is the site's identity)", func() { simrt.Buggify(ctx, "") }},
		}
		for _, c := range cases {
			if got := panicText(c.call); got != c.want {
				t.Errorf("panic = %q, want %q", got, c.want)
			}
		}
		simrt.Always(ctx, true, "a constant message") // a good call still passes
	})
}
