package realtime_test

import (
	"context"
	"errors"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// A context whose task was aborted and has ended, handed to another task:
// its Dial does not panic on the ended task's set of closers, and it
// connects: a Dial is its caller's, which the context's task's abort does
// not cut (nettest's DialThroughAnotherContextIsTheCallers).
func TestDialThroughEndedAbortedContext(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		handed := simrt.NewOneshot[simrt.Context]()
		h := simrt.Spawn(ctx.Child("dialer"), func(ctx simrt.Context) int {
			handed.Send(ctx)
			ctx.Sleep(time.Hour)
			return 0
		})
		tc, err := handed.Recv(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h.Abort()
		ctx.Sleep(50 * time.Millisecond) // the task's goroutine ends meanwhile
		si, st, err := tc.Dial(l.Addr())
		if err != nil {
			t.Fatalf("Dial through the context of an aborted task that ended: %v, want a connection", err)
		}
		si.Close()
		st.Close()
	})
}

// An abort of a listener's owner cuts short, with ErrClosed, an Accept
// blocked on a goroutine that is no task's, and leaves the listener open
// for a task's Accept.
func TestOwnerAbortCutsOrphanAccept(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		bl := simrt.NewOneshot[simrt.Listener]()
		h := simrt.Spawn(ctx.Child("owner"), func(ctx simrt.Context) int {
			l, err := ctx.Bind(loopback)
			if err != nil {
				t.Error(err)
				bl.Close()
				return 0
			}
			bl.Send(l)
			ctx.Sleep(time.Hour)
			return 0
		})
		l, err := bl.Recv(ctx)
		if err != nil {
			return
		}
		defer l.Close()
		done := make(chan error, 1)
		go func() {
			pprof.SetGoroutineLabels(context.Background()) // no task's goroutine
			_, si, st, err := l.Accept()
			if err == nil {
				si.Close()
				st.Close()
			}
			done <- err
		}()
		ctx.Sleep(20 * time.Millisecond)
		h.Abort()
		select {
		case err := <-done:
			if !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("an orphan Accept after its listener's owner was aborted: %v, want ErrClosed", err)
			}
		case <-time.After(bound):
			t.Errorf("an orphan Accept still blocks %v after its listener's owner was aborted", bound)
			l.Close()
			<-done
		}
		realtime.Connect(t, ctx, l, " of a task after the owner's abort")
	})
}
