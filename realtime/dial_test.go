package realtime_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
	"github.com/simrt/simrt/realtime"
)

// dialNet has a connect timeout well past bound: a Dial that returns
// within bound was cut short by the runtime, not by the timeout.
var dialNet = realtime.Config{Network: tcp.Config{ConnectTimeout: 3 * bound}}

// spawnDialer spawns a task whose first blocking call is a Dial of addr,
// and returns once the task is about to dial (it tells so without
// blocking). The task sends on unwound as it ends, with what Dial
// returned if it returned: the handle of an aborted task reports at once,
// whether or not the task is still blocked.
func spawnDialer(ctx simrt.Context, addr netip.AddrPort) (h *simrt.Handle[error], unwound *simrt.Oneshot[error]) {
	about := simrt.NewOneshot[struct{}]()
	unwound = simrt.NewOneshot[error]()
	h = simrt.Spawn(ctx.Child("dialer"), func(ctx simrt.Context) error {
		err := errors.New("Dial did not return")
		defer func() { unwound.Send(err) }()
		about.Send(struct{}{}) // does not block: Dial stays the first blocking call
		var si simrt.Sink
		var st simrt.Stream
		si, st, err = ctx.Dial(addr)
		if err == nil {
			si.Close()
			st.Close()
		}
		return err
	})
	about.Recv(ctx)
	return h, unwound
}

func TestAbortCutsFirstDial(t *testing.T) {
	addr := blackhole(t)
	start(dialNet, func(ctx simrt.Context) {
		h, unwound := spawnDialer(ctx, addr)
		begin := time.Now()
		h.Abort()
		var err error
		if terr := simrt.Timeout(ctx, bound, func() error { err, _ = unwound.Recv(ctx); return nil }); terr != nil {
			t.Errorf("an aborted Dial still blocks its task after %v", bound)
			return
		}
		if !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("the aborted Dial returned %v, want ErrClosed", err)
		}
		t.Logf("abort cut the Dial after %v", time.Since(begin))
	})
	goleak.VerifyNone(t) // nothing of the connect outlives Start
}

func TestShutdownCutsFirstDial(t *testing.T) {
	addr := blackhole(t)
	begin := time.Now()
	start(dialNet, func(ctx simrt.Context) {
		spawnDialer(ctx, addr)
		begin = time.Now()
	}) // the root returns: the shutdown aborts the dialer
	if took := time.Since(begin); took > bound {
		t.Errorf("Start returned %v after its root, blocked by a Dial (want within %v)", took, bound)
	}
	goleak.VerifyNone(t)
}

// TestAbortCutsDialOfBlockedTask covers a task that has blocked before it
// dials (its goroutine is marked as the task's): the abort cuts the
// connect itself, and no goroutine of it goes on after Start.
func TestAbortCutsDialOfBlockedTask(t *testing.T) {
	addr := blackhole(t)
	start(dialNet, func(ctx simrt.Context) {
		about := simrt.NewOneshot[struct{}]()
		h := simrt.Spawn(ctx.Child("dialer"), func(ctx simrt.Context) error {
			ctx.Sleep(time.Millisecond) // blocks once
			about.Send(struct{}{})
			_, _, err := ctx.Dial(addr)
			return err
		})
		about.Recv(ctx)
		h.Abort()
		if terr := simrt.Timeout(ctx, bound, func() error { h.Await(ctx); return nil }); terr != nil {
			t.Errorf("an aborted Dial still blocks its task after %v", bound)
		}
	})
	goleak.VerifyNone(t)
}
