package simrt_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage"
)

// A nil Context given to a Chan's Send or Recv, a nil *Handle, and a nil
// Context given to Await of a pending handle panic at the call, naming it,
// in both runtimes (not as a nil dereference inside the primitive).
func TestNilChanContextAndHandlePanicAtTheCall(t *testing.T) {
	onBothRuntimes(t, func(t *testing.T, ctx simrt.Context) {
		buffered, unbuffered := simrt.NewChan[int](1), simrt.NewChan[int](0)
		var nilHandle *simrt.Handle[int]
		pending, _ := storage.NewCompletion[int]()
		cases := []struct {
			want string
			call func()
		}{
			{"simrt: Chan.Send called with a nil Context", func() { buffered.Send(nil, 1) }},
			{"simrt: Chan.Send called with a nil Context", func() { unbuffered.Send(nil, 1) }},
			{"simrt: Chan.Recv called with a nil Context", func() { buffered.Recv(nil) }},
			{"simrt: Chan.Recv called with a nil Context", func() { unbuffered.Recv(nil) }},
			{"simrt: Handle.Await called on a nil *Handle", func() { nilHandle.Await(ctx) }},
			{"simrt: Handle.OnDone called on a nil *Handle", func() { nilHandle.OnDone(nil) }},
			{"simrt: Handle.Await called with a nil Context on a handle that is not done", func() { pending.Await(nil) }},
		}
		for _, c := range cases {
			if got := panicText(c.call); len(got) < len(c.want) || got[:len(c.want)] != c.want {
				t.Errorf("panic = %q, want %q", got, c.want)
			}
		}
		// The failed calls changed nothing: the channels still work.
		if err := buffered.Send(ctx, 7); err != nil {
			t.Fatal(err)
		}
		if v, ok := buffered.Recv(ctx); v != 7 || !ok {
			t.Errorf("Recv = %d, %v after the refused calls", v, ok)
		}
		// Await(nil) of a done handle stays allowed (no scheduling point).
		if v, err := storage.Ready(3, nil).Await(nil); v != 3 || err != nil {
			t.Errorf("Ready(3).Await(nil) = %d, %v", v, err)
		}
	})
}

// Start with a nil root panics at the call, naming it, on both runtimes,
// and runs nothing: the runner can still be started.
func TestStartNilRootPanics(t *testing.T) {
	d := deterministic.Seeded(1)
	if got := panicText(func() { d.Start(nil) }); got != "deterministic.Runner: Start called with a nil function" {
		t.Errorf("deterministic Start(nil): panic %q", got)
	}
	if got := panicText(func() { deterministic.Seeded(1).StartAndRecover(nil) }); got != "deterministic.Runner: StartAndRecover called with a nil function" {
		t.Errorf("deterministic StartAndRecover(nil): panic %q", got)
	}
	ran := false
	d.Start(func(*deterministic.Context) { ran = true })
	p := production()
	if got := panicText(func() { p.Start(nil) }); got != "realtime.Runner: Start called with a nil function" {
		t.Errorf("realtime Start(nil): panic %q", got)
	}
	if _, err := p.Start(func(simrt.Context) {}); err != nil || !ran {
		t.Errorf("Start after Start(nil): %v (simulator ran: %v)", err, ran)
	}
}
