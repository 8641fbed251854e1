package nettest

import (
	"bytes"
	"time"

	"github.com/simrt/simrt"
)

// The cases in this file pin the graceful close both runtimes share: a
// connection whose two halves are closed right after a Send delivers every
// byte the Send took, then the end of the stream. Over TCP that is a FIN
// after the bytes, not a reset (SO_LINGER 0) that drops what the sender's
// kernel still held.

// pattern returns n bytes that differ from their neighbours, so that a
// lost or repeated block shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i ^ i>>8 ^ i>>16)
	}
	return b
}

// receiveAll receives len(want) bytes, checks them, and checks that the
// stream then ends with ErrRecvFailed. It sleeps first, so that a peer
// whose Send fits in the buffers between the two ends (256 KiB over TCP
// does, not in the simulator) has closed before the first Recv, and a
// reset would have happened.
func receiveAll(t T, env Env, st simrt.Stream, want []byte, what string) {
	env.Sleep(50 * time.Millisecond)
	got := 0
	var err error
	if terr := simrt.Timeout(env, guard, func() error {
		for got < len(want) && err == nil {
			var p []byte
			n := min(len(want)-got, max(1, len(st.Peek(len(want)-got))))
			if p, err = st.Recv(n); err == nil {
				if !bytes.Equal(p, want[got:got+n]) {
					t.Errorf("%s: the %d bytes from byte %d are not those sent", what, n, got)
				}
				got += n
			}
		}
		return nil
	}); terr != nil {
		t.Errorf("%s: still waiting after %v, at byte %d of %d", what, guard, got, len(want))
		return
	}
	if got < len(want) {
		t.Errorf("%s: received %d of the %d bytes sent before the peer closed (then %v): want all of them", what, got, len(want), err)
		return
	}
	_, err = st.Recv(1)
	wantErr(t, err, simrt.ErrRecvFailed, what+": Recv past the end of a closed peer's bytes")
}

// A server that answers a request with 256 KiB and closes both halves of
// the connection at once, its peer reading nothing yet, delivers all
// 256 KiB and then the end of the stream: Close is graceful by default in
// both runtimes.
func closeAfterSendDeliversAll(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	msg := pattern(256 << 10)
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		if expect(t, c.stream, clientData, "server") {
			send(t, c.sink, "server", msg)
		}
		c.close()
	})
	c, ok := dial(t, env, l.Addr())
	if ok && send(t, c.sink, "client", clientData) {
		receiveAll(t, env, c.stream, msg, "client of a server that sent 256 KiB and closed")
		c.close()
	}
	wait()
}

// A server that sends 64 KiB right after Accept and closes at once, before
// its peer's Dial has even returned to it, delivers the 64 KiB: the Dial
// succeeds and the client receives every byte, then the end of the stream.
func closeRightAfterAcceptDeliversAll(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	msg := pattern(64 << 10)
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		send(t, c.sink, "server", msg)
		c.close()
	})
	c, ok := dial(t, env, l.Addr())
	wait()
	if ok {
		receiveAll(t, env, c.stream, msg, "client of a server that sent 64 KiB right after Accept and closed")
		c.close()
	}
}
