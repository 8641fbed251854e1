package realtime_test

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/suite"
)

// slowNet has network timeouts far beyond the tests' bounds: an operation
// that returns in time was cut short by simrt.Timeout, not by them.
var slowNet = realtime.Config{Network: tcp.Config{ConnectTimeout: time.Hour, ReadTimeout: time.Hour, WriteTimeout: time.Hour}}

const (
	cut   = 200 * time.Millisecond // the Timeout under test
	bound = 10 * time.Second       // far below the network's timeouts
)

// timed runs f under a Timeout of cut and checks it returns ErrTimeout
// between cut and bound.
func timed(t *testing.T, ctx simrt.Context, what string, f func() error) {
	t.Helper()
	begin := time.Now()
	err := simrt.Timeout(ctx, cut, f)
	took := time.Since(begin)
	if !errors.Is(err, simrt.ErrTimeout) {
		t.Errorf("%s under Timeout: %v, want ErrTimeout", what, err)
	}
	if took < cut || took > bound {
		t.Errorf("%s under Timeout returned after %v, want within [%v, %v]", what, took, cut, bound)
	}
}

// pair connects the calling task to a listener it binds, accepting on a
// spawned task: it returns the client halves and the accepted ones.
func pair(t *testing.T, ctx simrt.Context) (simrt.Sink, simrt.Stream, accepted) {
	l, err := ctx.Bind(loopback)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := simrt.NewOneshot[accepted]()
	simrt.Spawn(ctx.Child("acceptor"), func(simrt.Context) int {
		if _, si, st, err := l.Accept(); err == nil {
			got.Send(accepted{si, st})
		}
		return 0
	})
	si, st, err := ctx.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := got.Recv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return si, st, srv
}

func TestTimeoutCutsBlockedRecv(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		si, st, srv := pair(t, ctx)
		defer si.Close()
		defer st.Close()
		defer srv.sink.Close()
		defer srv.stream.Close()
		timed(t, ctx, "Recv", func() error { _, err := st.Recv(4); return err })
		if _, err := st.Recv(1); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Recv after an abandoned Recv: %v, want ErrClosed", err)
		}
		// The other half still works, both ways of the peer too.
		if err := si.Send([]byte("ping")); err != nil {
			t.Errorf("Send after the stream was poisoned: %v", err)
		}
		if b, err := srv.stream.Recv(4); err != nil || string(b) != "ping" {
			t.Errorf("peer Recv = %q, %v", b, err)
		}
	})
}

func TestTimeoutCutsBlockedSend(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		si, st, srv := pair(t, ctx)
		defer si.Close()
		defer st.Close()
		defer srv.sink.Close()
		defer srv.stream.Close()
		big := make([]byte, 1<<20)
		blocked := false
		for range 256 { // up to 256 MiB: more than any socket buffers
			err := simrt.Timeout(ctx, cut, func() error { return si.Send(big) })
			if errors.Is(err, simrt.ErrTimeout) {
				blocked = true
				break
			}
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
		}
		if !blocked {
			t.Fatal("no Send ever blocked on a full kernel buffer")
		}
		if err := si.Send([]byte{1}); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Send after an abandoned Send: %v, want ErrClosed", err)
		}
		if err := srv.sink.Send([]byte("pong")); err != nil {
			t.Fatal(err)
		}
		if b, err := st.Recv(4); err != nil || string(b) != "pong" {
			t.Errorf("Recv after the sink was poisoned = %q, %v", b, err)
		}
	})
}

func TestTimeoutCutsBlockedSendWithinBound(t *testing.T) {
	// A single Send far larger than the socket buffers blocks at once.
	start(slowNet, func(ctx simrt.Context) {
		si, st, srv := pair(t, ctx)
		defer si.Close()
		defer st.Close()
		defer srv.sink.Close()
		defer srv.stream.Close()
		// Made before the Timeout: under load, making 64 MiB can outlast
		// the cut, and the Send would then unwind before it blocks.
		big := make([]byte, 64<<20)
		timed(t, ctx, "Send(64 MiB)", func() error { return si.Send(big) })
		if err := si.Send([]byte{1}); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Send after an abandoned Send: %v, want ErrClosed", err)
		}
	})
}

func TestTimeoutCutsBlockedAccept(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		timed(t, ctx, "Accept", func() error { _, _, _, err := l.Accept(); return err })
		// As in the simulator, the listener stays open: the next Accept
		// gets a dial's connection.
		realtime.Connect(t, ctx, l, " after an abandoned Accept")
	})
}

// TestTimeoutCutsBlockedDial dials a loopback listener whose accept queue
// is full: the kernel drops the SYN and the connect hangs.
func TestTimeoutCutsBlockedDial(t *testing.T) {
	addr := blackhole(t)
	start(slowNet, func(ctx simrt.Context) {
		timed(t, ctx, "Dial", func() error {
			si, st, err := ctx.Dial(addr)
			if err == nil {
				si.Close()
				st.Close()
			}
			return err
		})
	})
	// Start has returned: no goroutine of an abandoned connect is left
	// (TestMain's goleak check would see it otherwise).
}

// blackhole returns the address of a loopback listener whose accept queue
// is full: the kernel drops a SYN to it, and a connect hangs until its
// timeout. Nothing leaves the loopback interface. The listener is closed
// when the test ends.
func blackhole(t suite.T) netip.AddrPort {
	t.Helper()
	fd, addr := fullListener(t)
	t.Cleanup(func() { syscall.Close(fd) })
	// Backlog 0 holds one or two connections: fill it, until a connect
	// hangs.
	for range 8 {
		c, err := net.DialTimeout("tcp", addr.String(), cut)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return addr
			}
			t.Fatalf("filling the accept queue: %v", err)
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Fatal("the accept queue of a backlog-0 listener never filled")
	return addr
}

// fullListener returns a loopback listening socket with a backlog of 0,
// which nobody accepts from.
func fullListener(t suite.T) (int, netip.AddrPort) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	in := sa.(*syscall.SockaddrInet4)
	return fd, netip.AddrPortFrom(netip.AddrFrom4(in.Addr), uint16(in.Port))
}

// TestTimeoutCutsRecvOnHandedConnection: the task blocked in Recv is the
// one a Timeout interrupts, although another task opened the connection
// (the network's read timeout is an hour here).
func TestTimeoutCutsRecvOnHandedConnection(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		si, st, srv := pair(t, ctx) // the root owns both ends
		defer si.Close()
		defer st.Close()
		h := simrt.Spawn(ctx.Child("handler"), func(ctx simrt.Context) int {
			defer srv.sink.Close()
			defer srv.stream.Close()
			timed(t, ctx, "Recv on a handed connection", func() error { _, err := srv.stream.Recv(4); return err })
			return 0
		})
		awaitWithin(t, ctx, h)
	})
}

// TestTimeoutCutsAcceptOnHandedListener: likewise for a listener bound by
// another task.
func TestTimeoutCutsAcceptOnHandedListener(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		awaitWithin(t, ctx, simrt.Spawn(ctx.Child("acceptor"), func(ctx simrt.Context) int {
			timed(t, ctx, "Accept on a handed listener", func() error { _, _, _, err := l.Accept(); return err })
			return 0
		}))
	})
}

// awaitWithin awaits h for up to bound: a task whose timed operation was
// not cut would otherwise hold the test for the network's timeout (the
// shutdown then unblocks it).
func awaitWithin(t *testing.T, ctx simrt.Context, h *simrt.Handle[int]) {
	t.Helper()
	if err := simrt.Timeout(ctx, bound, func() error { _, err := h.Await(ctx); return err }); err != nil {
		t.Errorf("the task still blocks after %v: %v", bound, err)
	}
}

// TestAbortCutsHandlerRecv is the accept loop of examples/greet: the root
// binds, an accept task spawns a handler per connection, and aborting a
// handler blocked in its first Recv ends it at once.
func TestAbortCutsHandlerRecv(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		about := simrt.NewOneshot[struct{}]()
		unwound := simrt.NewOneshot[struct{}]()
		handlers := simrt.NewChan[*simrt.Handle[int]](1)
		simrt.Spawn(ctx.Child("accept"), func(ctx simrt.Context) int {
			_, si, st, err := l.Accept()
			if err != nil {
				return 0
			}
			h := simrt.Spawn(ctx.Child("conn"), func(ctx simrt.Context) int {
				defer unwound.Send(struct{}{})
				defer si.Close()
				defer st.Close()
				about.Send(struct{}{}) // does not block
				st.Recv(2)             // the client sends nothing
				return 0
			})
			handlers.Send(ctx, h)
			simrt.Select(ctx) // accept loops live on (their end would abort the handler)
			return 0
		})
		si, st, err := ctx.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer si.Close()
		defer st.Close()
		h, _ := handlers.Recv(ctx)
		about.Recv(ctx)
		begin := time.Now()
		h.Abort()
		if err := simrt.Timeout(ctx, bound, func() error { _, err := unwound.Recv(ctx); return err }); err != nil {
			t.Errorf("an aborted handler still blocks in Recv after %v", bound)
		}
		t.Logf("the abort ended the handler after %v", time.Since(begin))
	})
}

// TestTimeoutCutsSendOnHandedConnection: a Send blocked on a full socket
// buffer, by a task the connection was handed to, is cut by that task's
// Timeout.
func TestTimeoutCutsSendOnHandedConnection(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		si, st, srv := pair(t, ctx) // the root owns both ends
		defer si.Close()
		defer st.Close()
		defer srv.sink.Close()
		defer srv.stream.Close()
		big := make([]byte, 64<<20) // made before the Timeout (see above)
		awaitWithin(t, ctx, simrt.Spawn(ctx.Child("sender"), func(ctx simrt.Context) int {
			timed(t, ctx, "Send(64 MiB) on a handed connection", func() error { return si.Send(big) })
			return 0
		}))
	})
}
