package realtime_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/nettest"
	"github.com/simrt/simrt/network/tcp"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/suite"
)

var loopback = netip.MustParseAddrPort("127.0.0.1:0")

// TestNetConformance runs the network suite on the runtime's network
// (metered over the interruption layer over tcp), from realtime tasks:
// the path production takes.
func TestNetConformance(t *testing.T) {
	nettest.Run(t, production(nil), nil)
	nettest.RunRecvMemory(t, production(func(suite.T) realtime.Config {
		return realtime.Config{Network: tcp.Config{MaxRecvMemory: nettest.BudgetRecvMemory}}
	}), nil)
	// A Dial blocks on a listener whose accept queue is full (blackhole);
	// slowNet's timeouts are far beyond the cases' bounds.
	nettest.RunDial(t, production(func(suite.T) realtime.Config { return slowNet }),
		func(t suite.T, ctx simrt.Context) (simrt.Network, netip.AddrPort) { return ctx, blackhole(t) })
}

// accepted is one server-side connection.
type accepted struct {
	sink   simrt.Sink
	stream simrt.Stream
}

func TestAbortUnblocksRecvOnOwnConnection(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		held := simrt.NewOneshot[accepted]()
		simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) int {
			_, si, st, err := l.Accept()
			if err == nil {
				held.Send(accepted{si, st}) // keep it open, send nothing
			}
			return 0
		})
		unwound := simrt.NewOneshot[error]()
		dialed := simrt.NewOneshot[struct{}]()
		client := simrt.Spawn(ctx.Child("client"), func(ctx simrt.Context) int {
			si, st, err := ctx.Dial(l.Addr())
			if err != nil {
				t.Error(err)
				return 0
			}
			defer si.Close()
			defer st.Close()
			// Whether the cut Recv returns or its task unwinds (it does,
			// now that the runtime knows the task blocked in it), the
			// client gets past it.
			err = errors.New("Recv unwound its task")
			defer func() { unwound.Send(err) }()
			dialed.Send(struct{}{}) // does not block
			_, err = st.Recv(1)     // blocks in the kernel until aborted
			return 1
		})
		// The client is connected (and about to block); an abort before
		// Dial returns would cut the Dial instead.
		dialed.Recv(ctx)
		srv, _ := held.Recv(ctx)
		defer srv.sink.Close()
		defer srv.stream.Close()
		client.Abort()
		if _, err := client.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("aborted client: %v, want ErrClosed", err)
		}
		if err, _ := unwound.Recv(ctx); err == nil {
			t.Error("Recv on an aborted task's connection returned no error")
		}
	})
}

func TestShutdownUnblocksAcceptAndHandedOffRecv(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		si, st, err := ctx.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		// One task waits in Accept forever (the only pending dial is
		// accepted by nobody else), another in Recv on a connection it
		// did not open. Returning from the root must unblock both.
		simrt.Spawn(ctx.Child("acceptor"), func(simrt.Context) int {
			for {
				if _, _, _, err := l.Accept(); err != nil {
					return 0
				}
			}
		})
		simrt.Spawn(ctx.Child("reader"), func(simrt.Context) int {
			defer si.Close()
			st.Recv(1)
			return 0
		})
		simrt.Reschedule(ctx)
	})
	// goleak (TestMain) checks that nothing is left behind.
}

// TestKilledPeerFailsRecvThenSend kills a plain-net peer (SO_LINGER 0, as
// a crashed process's kernel would reset it) in the middle of a message:
// the blocked Recv fails with ErrRecvFailed instead of hanging, and Send
// fails with ErrSendFailed.
func TestKilledPeerFailsRecvThenSend(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peerDone := make(chan struct{})
	go func() {
		defer close(peerDone)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 4)
		io.ReadFull(c, buf) // the client's request
		c.Write([]byte("half a message"))
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // killed mid-stream: the kernel sends a reset
	}()
	start(realtime.Config{}, func(ctx simrt.Context) {
		si, st, err := ctx.Dial(netip.MustParseAddrPort(ln.Addr().String()))
		if err != nil {
			t.Fatal(err)
		}
		defer si.Close()
		defer st.Close()
		if err := si.Send([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Recv(100); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("Recv from a killed peer: %v, want ErrRecvFailed", err)
		}
		// The reset has arrived: the connection is gone both ways.
		var sendErr error
		for range 100 {
			if sendErr = si.Send(bytes.Repeat([]byte{1}, 64<<10)); sendErr != nil {
				break
			}
		}
		if !errors.Is(sendErr, simrt.ErrSendFailed) {
			t.Errorf("Send to a killed peer: %v, want ErrSendFailed", sendErr)
		}
	})
	<-peerDone
}

// An abort of a connection's owner (the task that dialled it) cuts short
// a Recv blocked on a goroutine that is no task's, and fails later calls
// of such goroutines with ErrClosed, but leaves the connection open for
// tasks: the root, to which the owner handed it, sends on it.
func TestOwnerAbortCutsOrphanRecv(t *testing.T) {
	start(slowNet, func(ctx simrt.Context) {
		l, err := ctx.Bind(loopback)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		handed := simrt.NewOneshot[accepted]()
		h := simrt.Spawn(ctx.Child("owner"), func(ctx simrt.Context) int {
			si, st, err := ctx.Dial(l.Addr())
			if err != nil {
				t.Error(err)
				handed.Close()
				return 0
			}
			handed.Send(accepted{si, st})
			ctx.Sleep(time.Hour)
			return 0
		})
		c, err := handed.Recv(ctx)
		if err != nil {
			return
		}
		defer c.sink.Close()
		defer c.stream.Close()
		_, psi, pst, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer psi.Close()
		defer pst.Close()
		done := make(chan error, 1)
		go func() {
			pprof.SetGoroutineLabels(context.Background()) // no task's goroutine
			_, err := c.stream.Recv(1)                     // nothing is sent
			done <- err
		}()
		ctx.Sleep(20 * time.Millisecond)
		h.Abort()
		select {
		case err := <-done:
			if err == nil {
				t.Error("an orphan Recv after its connection's owner was aborted returned no error")
			}
		case <-time.After(bound):
			t.Errorf("an orphan Recv still blocks %v after its connection's owner was aborted", bound)
			c.stream.Close()
			<-done
		}
		go func() {
			pprof.SetGoroutineLabels(context.Background())
			done <- c.sink.Send(clientMsg)
		}()
		if err := <-done; !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("an orphan Send after its connection's owner was aborted: %v, want ErrClosed", err)
		}
		if err := c.sink.Send(clientMsg); err != nil {
			t.Fatalf("a task's Send after the connection's owner was aborted: %v", err)
		}
		if got, err := pst.Recv(len(clientMsg)); err != nil || !bytes.Equal(got, clientMsg) {
			t.Errorf("peer's Recv after the owner's abort: %q, %v; want %q", got, err, clientMsg)
		}
	})
}

var clientMsg = []byte("ping")
