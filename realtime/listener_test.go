package realtime_test

import (
	"errors"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// A context whose task was aborted and has ended, handed to another task:
// its Dial fails with ErrClosed (the abort cancels it at once) and does
// not panic on the ended task's set of closers.
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
		if err == nil {
			si.Close()
			st.Close()
		}
		if !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Dial through the context of an aborted task that ended: %v, want ErrClosed", err)
		}
	})
}
