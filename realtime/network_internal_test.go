package realtime

import (
	"errors"
	"io"
	"log/slog"
	"net/netip"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// TestDeviceInterrupts checks that the device under the interruption
// layer, network/tcp, gives listeners and halves that are interrupters
// (ioTarget.init panics otherwise), and that Interrupt cuts them as the
// layer expects: a listener closes, a half shuts down.
func TestDeviceInterrupts(t *testing.T) {
	n := tcp.New(tcp.Config{})
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	si, st, _, _ := connect(t, n, l, "")
	for _, v := range []any{l, si, st} {
		if _, ok := v.(interrupter); !ok {
			t.Fatalf("tcp's %T has no Interrupt method", v)
		}
	}
	st.(interrupter).Interrupt()
	if _, err := st.Recv(1); err == nil {
		t.Error("Recv on an interrupted stream succeeded")
	}
	si.(interrupter).Interrupt()
	if err := si.Send([]byte{1}); err == nil {
		t.Error("Send on an interrupted sink succeeded")
	}
	l.(interrupter).Interrupt()
	if _, _, _, err := l.Accept(); err == nil {
		t.Error("Accept on an interrupted listener succeeded")
	}
}

// TestStackAllocsPerMessage pins what a message costs through the whole
// production stack (metered over the interruption layer over tcp), from a
// task that the interruption layer knows: a Send allocates nothing, a Recv
// only the slice it returns. The variadic slice of a Send through the
// interface is the caller's (built once here).
func TestStackAllocsPerMessage(t *testing.T) {
	New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Start(func(ctx simrt.Context) {
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		si, _, _, pst := connect(t, ctx, l, "")
		ctx.Sleep(0) // the root blocks through its context: it is known from now on
		if !ctx.(*Context).task.marked() {
			t.Fatal("the root task is not known to the interruption layer")
		}
		msg := make([]byte, 64)
		for _, bufs := range [][][]byte{{msg}, {msg[:4], msg[4:]}} {
			var failed error
			allocs := testing.AllocsPerRun(100, func() {
				if err := si.Send(bufs...); err != nil {
					failed = err
					return
				}
				if _, err := pst.Recv(64); err != nil {
					failed = err
				}
			})
			if failed != nil {
				t.Fatal(failed)
			}
			if allocs != 1 {
				t.Errorf("Send of %d buffers and Recv: %v allocations, want 1 (the slice Recv returns)", len(bufs), allocs)
			}
		}
	})
}

// dialer is what connect dials through: a network or a task's context.
type dialer interface {
	Dial(netip.AddrPort) (simrt.Sink, simrt.Stream, error)
}

// connect dials l through d and accepts the connection, failing the test
// (its messages end with what) if either fails; the four halves are closed
// when the test ends.
func connect(t *testing.T, d dialer, l simrt.Listener, what string) (si simrt.Sink, st simrt.Stream, psi simrt.Sink, pst simrt.Stream) {
	t.Helper()
	si, st, err := d.Dial(l.Addr())
	if err != nil {
		t.Fatalf("Dial%s: %v", what, err)
	}
	t.Cleanup(func() { si.Close(); st.Close() })
	_, psi, pst, err = l.Accept()
	if err != nil {
		t.Fatalf("Accept%s: %v", what, err)
	}
	t.Cleanup(func() { psi.Close(); pst.Close() })
	return si, st, psi, pst
}

// TestAbortCutsRecvOfUnknownOwner covers an owner the interruption layer
// does not know (it started before the runtime opened anything and has
// never blocked through its context): its Recv on the connection it
// dialled is one of a goroutine that is no task's, which the owner's abort
// cuts short, so the aborted task does not stay blocked in the kernel.
func TestAbortCutsRecvOfUnknownOwner(t *testing.T) {
	cfg := Config{Network: tcp.Config{ReadTimeout: time.Hour}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	New(cfg).Start(func(ctx simrt.Context) {
		addr := make(chan netip.AddrPort, 1) // native channels: the owner blocks on nothing of the runtime's
		unmarked := make(chan bool, 1)
		ended := make(chan struct{})
		started := make(chan struct{})
		h := simrt.Spawn(ctx.Child("owner"), func(ctx simrt.Context) int {
			defer close(ended)
			close(started)
			si, st, err := ctx.Dial(<-addr)
			if err != nil {
				t.Error(err)
				unmarked <- false
				return 0
			}
			defer si.Close()
			defer st.Close()
			unmarked <- !ctx.(*Context).task.marked()
			st.Recv(1) // nothing is sent
			return 0
		})
		<-started // before the runtime opens anything: the owner's goroutine is not marked at its start
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addr <- l.Addr()
		_, psi, pst, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer psi.Close()
		defer pst.Close()
		if !<-unmarked {
			t.Fatal("the owner is known to the interruption layer: the case does not arise")
		}
		ctx.Sleep(20 * time.Millisecond) // the owner blocks in Recv meanwhile
		h.Abort()
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.Fatal("an aborted owner unknown to the interruption layer still blocks in Recv after 10s")
		}
	})
}

// TestTimeoutBeforeIOBlocksPoisons forces the race of a Timeout whose
// time runs out before its Recv, or Send, has begun (before beginIO
// records it): the call unwinds the task with ErrTimeout and poisons its
// half, as a call cut while blocked does, though it moved no byte.
func TestTimeoutBeforeIOBlocksPoisons(t *testing.T) {
	New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Start(func(ctx simrt.Context) {
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		si, st, psi, _ := connect(t, ctx, l, "")
		ctx.Sleep(0) // the root blocks through its context: it is known from now on
		task := ctx.(*Context).task
		late := func(op func() error) error {
			return simrt.Timeout(ctx, time.Millisecond, func() error {
				for !task.ct.InterruptPending() { // the time runs out before op begins
					goruntime.Gosched()
				}
				return op()
			})
		}
		err = late(func() error {
			_, err := st.Recv(1) // nothing has been sent
			return err
		})
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Fatalf("Timeout around a Recv begun after its time ran out: %v, want ErrTimeout", err)
		}
		if err := psi.Send([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Recv(1); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Recv after a Recv unwound before it began: %v, want ErrClosed (the stream is poisoned)", err)
		}
		if err := late(func() error { return si.Send([]byte("y")) }); !errors.Is(err, simrt.ErrTimeout) {
			t.Fatalf("Timeout around a Send begun after its time ran out: %v, want ErrTimeout", err)
		}
		if err := si.Send([]byte("z")); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Send after a Send unwound before it began: %v, want ErrClosed (the sink is poisoned)", err)
		}
	})
}
