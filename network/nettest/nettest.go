// Package nettest is the conformance suite every simrt.Network passes: the
// ten behaviours of the network tests of commonware-runtime (the Rust
// crate simrt ports), and the rules both
// runtimes must share beyond them (limits.go, graceful.go, ...), each a
// subtest named after the rule it checks, each on a fresh runtime and
// network. The network under test must keep the default maximum receive
// size, simrt.DefaultMaxRecvSize. RunRecvMemory runs the cases of the
// bound on receive memory, on a network configured with a small one;
// RunDial the cases of a Dial that hangs.
//
// A network runs it from its own tests, on a runtime under test (a
// suite.Runtime, which the runtime's own tests describe) and with a
// constructor of the network, called in each case's root task:
//
//	func TestConformance(t *testing.T) {
//		nettest.Run(t, simulator, func(t nettest.T, ctx simrt.Context) simrt.Network {
//			return simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
//		})
//	}
//
// A nil constructor tests the runtime's own network. Test, TestRecvMemory
// and TestDial are the error-returning forms, for other runners.
package nettest

import (
	"bytes"
	"errors"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
)

var cases = []struct {
	name  string
	check func(t T, env Env)
}{
	{"BindAndDial", bindAndDial},
	{"VectoredSend", vectoredSend},
	{"MultipleClients", multipleClients},
	{"LargeData", largeData},
	{"ConnectionErrors", connectionErrors},
	{"BindZeroAssignsPorts", bindZeroAssignsPorts},
	{"BindUnspecifiedTakesThePort", bindUnspecifiedTakesThePort},
	{"BindAfterCloseSucceeds", bindAfterCloseSucceeds},
	{"DialLoopbackReachesUnspecified", dialLoopbackReachesUnspecified},
	{"ExpiredTimeoutCutsAcceptAndDial", expiredTimeoutCutsAcceptAndDial},
	{"Peek", peek},
	{"CanceledRecvPoisonsStream", canceledRecvPoisonsStream},
	{"CanceledSendPoisonsSink", canceledSendPoisonsSink},
	{"RecvErrorPoisonsStream", recvErrorPoisonsStream},
	{"SendErrorPoisonsSink", sendErrorPoisonsSink},
	{"SendToClosedStreamIsAccepted", sendToClosedStreamIsAccepted},
	{"RecvAboveMaximumFails", recvAboveMaximumFails},
	{"RecvOfNegativeLengthFails", recvOfNegativeLengthFails},
	{"LargeRecvAllocatesAsBytesArrive", largeRecvAllocatesAsBytesArrive},
	{"SendTakenByPeerSucceeds", sendTakenByPeerSucceeds},
	{"CloseAfterSendDeliversAll", closeAfterSendDeliversAll},
	{"CloseRightAfterAcceptDeliversAll", closeRightAfterAcceptDeliversAll},
	{"CloseCutsParkedRecv", closeCutsParkedRecv},
	{"CloseCutsParkedSend", closeCutsParkedSend},
	{"AbortCutsBlockedRecv", abortCutsBlockedRecv},
	{"AbortCutsBlockedSend", abortCutsBlockedSend},
	{"CutSendEndsPeersStream", cutSendEndsPeersStream},
	{"CutSendDeliversStrictPrefix", cutSendDeliversStrictPrefix},
	{"AbortCutsBlockedAccept", abortCutsBlockedAccept},
	{"TimeoutCutsBlockedAccept", timeoutCutsBlockedAccept},
	{"AbortedAcceptPassesConnectionOn", abortedAcceptPassesConnectionOn},
	{"TimeoutInAcceptKeepsListener", timeoutInAcceptKeepsListener},
	{"AbortInAcceptKeepsListener", abortInAcceptKeepsListener},
	{"AbortOfListenerOwnerKeepsListener", abortOfListenerOwnerKeepsListener},
	{"TimeoutInRecvPoisonsStream", timeoutInRecvPoisonsStream},
	{"AbortOfDialerKeepsConnection", abortOfDialerKeepsConnection},
	{"AbortOfDialerInRecvKeepsSink", abortOfDialerInRecvKeepsSink},
	{"AbortOfListenerOwnerKeepsAcceptedConnections", abortOfListenerOwnerKeepsAcceptedConnections},
	{"InterruptedRecvPoisonsStream", interruptedRecvPoisonsStream},
	{"InterruptedSendPoisonsSink", interruptedSendPoisonsSink},
}

var (
	anyPort    = netip.MustParseAddrPort("127.0.0.1:0")
	clientData = []byte("client_send_data")
	serverData = []byte("server_send_data")
)

// conn is one end of a connection.
type conn struct {
	sink   simrt.Sink
	stream simrt.Stream
}

func (c conn) close() {
	c.sink.Close()
	c.stream.Close()
}

func bind(t T, env Env) simrt.Listener {
	l, err := env.Network().Bind(anyPort)
	if err != nil {
		t.Errorf("Bind(%v): %v", anyPort, err)
		return nil
	}
	return l
}

func dial(t T, env Env, addr netip.AddrPort) (conn, bool) {
	si, st, err := env.Network().Dial(addr)
	if err != nil {
		t.Errorf("Dial(%v): %v", addr, err)
		return conn{}, false
	}
	return conn{si, st}, true
}

func accept(t T, l simrt.Listener) (conn, bool) {
	_, si, st, err := l.Accept()
	if err != nil {
		t.Errorf("Accept: %v", err)
		return conn{}, false
	}
	return conn{si, st}, true
}

// serveOne accepts one connection on l in a new task and hands it to
// server; the returned function waits for that task.
func serveOne(t T, env Env, l simrt.Listener, server func(env Env, c conn)) (wait func()) {
	return env.Go(func(env Env) {
		if c, ok := accept(t, l); ok {
			server(env, c)
		}
	})
}

// expect receives len(want) bytes and checks them.
func expect(t T, st simrt.Stream, want []byte, what string) bool {
	got, err := st.Recv(len(want))
	if err != nil {
		t.Errorf("%s: Recv(%d): %v", what, len(want), err)
		return false
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: received %q, want %q", what, got, want)
		return false
	}
	return true
}

func send(t T, si simrt.Sink, what string, bufs ...[]byte) bool {
	if err := si.Send(bufs...); err != nil {
		t.Errorf("%s: Send: %v", what, err)
		return false
	}
	return true
}

func wantErr(t T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got error %v, want %v", what, err, want)
	}
}

// exchange is the client side of bindAndDial: send clientData, expect
// serverData.
func exchange(t T, env Env, addr netip.AddrPort) {
	c, ok := dial(t, env, addr)
	if !ok {
		return
	}
	defer c.close()
	if send(t, c.sink, "client", clientData) {
		expect(t, c.stream, serverData, "client")
	}
}

// serve is the server side of bindAndDial for one accepted connection.
func serve(t T, c conn) {
	if expect(t, c.stream, clientData, "server") {
		send(t, c.sink, "server", serverData)
	}
}

// A client and a server exchange one message each way.
func bindAndDial(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.close()
		serve(t, c)
		c.stream.Recv(1) // hold the connection until the client is done
	})
	exchange(t, env, l.Addr())
	wait()
}

// A message sent in three chunks is received as one byte string.
func vectoredSend(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	chunks := [][]byte{[]byte("first "), []byte("second "), []byte("third")}
	want := bytes.Join(chunks, nil)
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.close()
		expect(t, c.stream, want, "server")
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		send(t, c.sink, "client", chunks...)
	}
	wait()
}

// Three clients talk to one server at once; every connection stays open
// until all exchanges are done.
func multipleClients(t T, env Env) {
	const clients = 3
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := env.Go(func(env Env) {
		var conns []conn
		var waits []func()
		for range clients {
			c, ok := accept(t, l)
			if !ok {
				return
			}
			conns = append(conns, c)
			waits = append(waits, env.Go(func(Env) { serve(t, c) }))
		}
		for _, w := range waits {
			w()
		}
		for _, c := range conns {
			c.close()
		}
	})
	var waits []func()
	for range clients {
		waits = append(waits, env.Go(func(env Env) { exchange(t, env, l.Addr()) }))
	}
	for _, w := range waits {
		w()
	}
	wait()
}

// 1000 chunks of 8 KiB arrive intact and in order.
func largeData(t T, env Env) {
	const chunks, size = 1000, 8 << 10
	chunk := func(i int) []byte {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(i + j)
		}
		return b
	}
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.close()
		for i := range chunks {
			if !expect(t, c.stream, chunk(i), "server") {
				return
			}
		}
		send(t, c.sink, "server", []byte{1})
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		for i := range chunks {
			if !send(t, c.sink, "client", chunk(i)) {
				break
			}
		}
		expect(t, c.stream, []byte{1}, "client ack")
	}
	wait()
}

// Dialing a port nobody listens on fails with ErrConnectionFailed; binding
// an address in use, or an invalid one (the zero AddrPort), fails with
// ErrBindFailed.
func connectionErrors(t T, env Env) {
	_, _, err := env.Network().Dial(netip.MustParseAddrPort("127.0.0.1:1"))
	wantErr(t, err, simrt.ErrConnectionFailed, "Dial(127.0.0.1:1)")
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	_, err = env.Network().Bind(l.Addr())
	wantErr(t, err, simrt.ErrBindFailed, "second Bind of "+l.Addr().String())
	bad, err := env.Network().Bind(netip.AddrPort{})
	if err == nil {
		bad.Close()
	}
	wantErr(t, err, simrt.ErrBindFailed, "Bind(netip.AddrPort{})")
}

// Peek shows buffered bytes without consuming them, at most max of them,
// and nothing once everything has been received.
func peek(t T, env Env) {
	msg := []byte("0123456789abcdefghijklmnopqr") // 28 bytes
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.close()
		if !expect(t, c.stream, msg[:5], "server") {
			return
		}
		p := c.stream.Peek(100)
		if len(p) == 0 || !bytes.HasPrefix(msg[5:], p) {
			t.Errorf("Peek(100) after Recv(5) = %q, want a non-empty prefix of %q", p, msg[5:])
		}
		if again := c.stream.Peek(100); !bytes.Equal(again, p) {
			t.Errorf("second Peek(100) = %q, want %q (Peek must not consume)", again, p)
		}
		if short := c.stream.Peek(3); len(p) >= 3 && !bytes.Equal(short, msg[5:8]) {
			t.Errorf("Peek(3) = %q, want %q", short, msg[5:8])
		}
		if !expect(t, c.stream, msg[5:], "server rest") {
			return
		}
		if p := c.stream.Peek(100); len(p) != 0 {
			t.Errorf("Peek after consuming everything = %q, want empty", p)
		}
		send(t, c.sink, "server", []byte{1})
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		send(t, c.sink, "client", msg)
		expect(t, c.stream, []byte{1}, "client ack")
	}
	wait()
}

// A Recv abandoned by a Timeout poisons the stream (the next Recv fails
// with ErrClosed) and leaves the sink usable.
func canceledRecvPoisonsStream(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.close()
		expect(t, c.stream, clientData, "server")
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		err := simrt.Timeout(env, 5*time.Millisecond, func() error {
			_, err := c.stream.Recv(100)
			return err
		})
		wantErr(t, err, simrt.ErrTimeout, "Recv(100) under a 5ms Timeout")
		_, err = c.stream.Recv(1)
		wantErr(t, err, simrt.ErrClosed, "Recv after an abandoned Recv")
		send(t, c.sink, "client sink after its stream was poisoned", clientData)
	}
	wait()
}

// A Send abandoned while parked on back-pressure poisons the sink (the
// next Send fails with ErrClosed) and leaves the stream usable.
func canceledSendPoisonsSink(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	done := simrt.NewOneshot[struct{}]()
	wait := serveOne(t, env, l, func(env Env, c conn) {
		defer c.close()
		done.Recv(env) // receive nothing until the client is done sending
		send(t, c.sink, "server", serverData)
		c.stream.Recv(1) // hold the connection until the client is done
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		big := make([]byte, 128<<10)
		blocked := false
		for range 1024 { // up to 128 MiB: more than any socket buffers
			err := simrt.Timeout(env, 100*time.Millisecond, func() error { return c.sink.Send(big) })
			if errors.Is(err, simrt.ErrTimeout) {
				blocked = true
				break
			}
			if err != nil {
				t.Errorf("Send: %v", err)
				break
			}
		}
		if !blocked {
			t.Errorf("no Send ever parked on back-pressure")
		}
		wantErr(t, c.sink.Send([]byte{1}), simrt.ErrClosed, "Send after an abandoned Send")
		done.Send(struct{}{})
		expect(t, c.stream, serverData, "client stream after its sink was poisoned")
	}
	done.Send(struct{}{})
	wait()
}

// A Recv that fails because the peer closed its sink poisons the stream:
// the next Recv fails with ErrClosed even though bytes were buffered. The
// sink stays usable.
func recvErrorPoisonsStream(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.stream.Close()
		send(t, c.sink, "server", make([]byte, 50))
		c.sink.Close()
		expect(t, c.stream, clientData, "server")
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		_, err := c.stream.Recv(100)
		wantErr(t, err, simrt.ErrRecvFailed, "Recv(100) of a 50-byte stream whose sink closed")
		_, err = c.stream.Recv(1)
		wantErr(t, err, simrt.ErrClosed, "Recv after a failed Recv")
		send(t, c.sink, "client sink after its stream failed", clientData)
	}
	wait()
}

// Once the peer has closed both halves, Send eventually fails with
// ErrSendFailed and then with ErrClosed; bytes the peer sent before
// closing can still be received.
func sendErrorPoisonsSink(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	dialed, closed := simrt.NewOneshot[struct{}](), simrt.NewOneshot[struct{}]()
	wait := serveOne(t, env, l, func(env Env, c conn) {
		dialed.Recv(env) // a real socket may see the close before its dial returns
		send(t, c.sink, "server", serverData)
		c.close()
		closed.Send(struct{}{})
	})
	c, ok := dial(t, env, l.Addr())
	dialed.Send(struct{}{})
	if ok {
		defer c.close()
		closed.Recv(env)
		var err error
		for range 100 {
			if err = c.sink.Send(clientData); err != nil {
				break
			}
			env.Sleep(10 * time.Millisecond)
		}
		wantErr(t, err, simrt.ErrSendFailed, "Send to a closed peer")
		wantErr(t, c.sink.Send(clientData), simrt.ErrClosed, "Send after a failed Send")
		expect(t, c.stream, serverData, "client stream after its sink failed")
	}
	wait()
}
