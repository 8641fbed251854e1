package nettest

import (
	"bytes"
	"errors"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
)

// The cases in this file pin what an abort does to a task blocked in the
// network, in both runtimes: the task ends promptly (well before any
// network timeout), its handle reports simrt.ErrClosed, and another
// task's operation, blocked at the same moment on another connection,
// goes on undisturbed. In the simulator the task unwinds at its park; in
// production the runtime cuts the system call short, which is what these
// cases are for.

// settle is how long a case lets a task reach its blocking call before it
// aborts it; the case holds whether or not the call has blocked by then.
const settle = 20 * time.Millisecond

// blocked spawns a task that tells it is about to call op (without
// blocking), then calls op, and sends on ended when it ends, however it
// ends. It returns once the task is about to call op.
func blocked(env Env, op func(env Env)) (h *simrt.Handle[struct{}], ended *simrt.Oneshot[struct{}]) {
	about := simrt.NewOneshot[struct{}]()
	ended = simrt.NewOneshot[struct{}]()
	h = env.Spawn(func(env Env) {
		defer ended.Send(struct{}{})
		about.Send(struct{}{})
		op(env)
	})
	about.Recv(env)
	return h, ended
}

// abortBlocked aborts the task of h after settle and checks that its
// handle reports ErrClosed and that the task has ended, both within
// guard. It reports whether the task has ended.
func abortBlocked(t T, env Env, what string, h *simrt.Handle[struct{}], ended *simrt.Oneshot[struct{}]) bool {
	t.Helper()
	env.Sleep(settle)
	h.Abort()
	var err error
	if terr := simrt.Timeout(env, guard, func() error { _, err = h.Await(env); return nil }); terr != nil {
		t.Errorf("%s: the aborted task's handle did not report within %v", what, guard)
	} else {
		wantErr(t, err, simrt.ErrClosed, what+": Await of the aborted task")
	}
	if terr := simrt.Timeout(env, guard, func() error { _, err := ended.Recv(env); return err }); terr != nil {
		t.Errorf("%s: the aborted task still blocks after %v", what, guard)
		return false
	}
	return true
}

// bystander is a connection of its own (from a listener the case may use
// too: a simulated network binds a port once), with a task blocked in
// Recv on one end; check sends to it and checks it receives, as if nothing
// had happened. It reports false if the connection could not be opened.
type bystander struct {
	client conn
	server conn
	got    *simrt.Oneshot[[]byte]
}

func newBystander(t T, env Env, l simrt.Listener) (*bystander, bool) {
	c, s, ok := connect(t, env, l)
	if !ok {
		return nil, false
	}
	b := &bystander{client: c, server: s, got: simrt.NewOneshot[[]byte]()}
	env.Go(func(Env) {
		p, err := s.stream.Recv(len(clientData))
		if err != nil {
			t.Errorf("bystander: Recv: %v", err)
		}
		b.got.Send(p)
	})
	return b, true
}

// check sends to the bystander's blocked Recv and checks that it gets the
// bytes, and that the connection still works the other way.
func (b *bystander) check(t T, env Env, what string) {
	t.Helper()
	if !send(t, b.client.sink, what+": bystander", clientData) {
		return
	}
	var p []byte
	if terr := simrt.Timeout(env, guard, func() error { p, _ = b.got.Recv(env); return nil }); terr != nil {
		t.Errorf("%s: another task's Recv still blocks after %v", what, guard)
		return
	}
	if !bytes.Equal(p, clientData) {
		t.Errorf("%s: another task's Recv got %q, want %q", what, p, clientData)
	}
	if send(t, b.server.sink, what+": bystander reply", serverData) {
		expect(t, b.client.stream, serverData, what+": bystander reply")
	}
}

func (b *bystander) close() {
	b.client.close()
	b.server.close()
}

// connect dials l and accepts the connection: c is the dialer's end, s the
// listener's. It reports false, with nothing left open, if either fails.
func connect(t T, env Env, l simrt.Listener) (c, s conn, ok bool) {
	if c, ok = dial(t, env, l.Addr()); !ok {
		return conn{}, conn{}, false
	}
	if s, ok = accept(t, l); !ok {
		c.close()
		return conn{}, conn{}, false
	}
	return c, s, true
}

// withConnection binds a listener, connects to it and runs f with the
// dialer's end c and the listener's end s, closing all three after f. It
// runs nothing if the bind or the connection fails (that is reported).
func withConnection(t T, env Env, f func(c, s conn)) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	c, s, ok := connect(t, env, l)
	if !ok {
		return
	}
	defer c.close()
	defer s.close()
	f(c, s)
}

// cut is an operation that blocks, as the abort cases run it.
type cut struct {
	what string // the operation, for messages
	// conn says the operation needs a connection of its own beside the
	// bystander's: c is its dialer's end, s its listener's.
	conn bool
	// block calls the operation, which blocks until the task is aborted;
	// l is the case's listener.
	block func(env Env, l simrt.Listener, c conn)
	// after, unless nil, checks what the abort left behind; ended says
	// whether the aborted task has ended.
	after func(t T, c, s conn, ended bool)
}

// abortCut is the skeleton of the abort cases: on a fresh listener, with a
// bystander and (if k.conn) a connection of its own, it blocks a task in
// k's operation, aborts it (see abortBlocked), runs k.after and checks the
// bystander.
func abortCut(t T, env Env, k cut) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	by, ok := newBystander(t, env, l)
	if !ok {
		return
	}
	defer by.close()
	var c, s conn
	if k.conn {
		if c, s, ok = connect(t, env, l); !ok {
			return
		}
		defer c.close()
		defer s.close()
	}
	h, ended := blocked(env, func(env Env) { k.block(env, l, c) })
	if done := abortBlocked(t, env, k.what, h, ended); k.after != nil {
		k.after(t, c, s, done)
	}
	by.check(t, env, k.what)
}

// discard closes the connection an operation opened (it was meant to
// block, not to open one) and returns the operation's error.
func discard(si simrt.Sink, st simrt.Stream, err error) error {
	if err == nil {
		si.Close()
		st.Close()
	}
	return err
}

// acceptOn is l.Accept without the peer's address.
func acceptOn(l simrt.Listener) (simrt.Sink, simrt.Stream, error) {
	_, si, st, err := l.Accept()
	return si, st, err
}

// An abort cuts a task blocked in Recv short; the connection's other half
// and another task's Recv are not disturbed. (Whether the stream is
// poisoned depends on whether the Recv had begun when the abort came,
// which a case on real sockets cannot know.)
func abortCutsBlockedRecv(t T, env Env) {
	abortCut(t, env, cut{
		what: "Recv",
		conn: true,
		block: func(_ Env, _ simrt.Listener, c conn) {
			c.stream.Recv(len(serverData)) // nothing is sent
		},
		after: func(t T, c, s conn, _ bool) {
			if send(t, c.sink, "sink of the aborted Recv's connection", clientData) {
				expect(t, s.stream, clientData, "peer of the aborted Recv")
			}
		},
	})
}

// An abort cuts a task blocked in Send on back-pressure short; the
// connection's other half and another task's Recv are not disturbed.
func abortCutsBlockedSend(t T, env Env) {
	big := make([]byte, 128<<10)
	var sendErr error
	abortCut(t, env, cut{
		what: "Send",
		conn: true,
		block: func(_ Env, _ simrt.Listener, c conn) {
			for range 1024 { // up to 128 MiB: more than any socket buffers
				if sendErr = c.sink.Send(big); sendErr != nil {
					return
				}
			}
			sendErr = errors.New("no Send blocked on back-pressure") // the peer reads nothing
		},
		after: func(t T, c, s conn, ended bool) {
			if ended && sendErr != nil && !errors.Is(sendErr, simrt.ErrClosed) {
				t.Errorf("the aborted Send returned %v, want ErrClosed or an unwound task", sendErr)
			}
			if send(t, s.sink, "peer of the aborted Send", serverData) {
				expect(t, c.stream, serverData, "stream of the aborted Send's connection")
			}
		},
	})
}

// A Send cut short while it blocks on back-pressure (its task's
// simrt.Timeout expires) poisons the sink and ends the peer's stream after
// the bytes that made it, as TCP ends it when the write half is shut down:
// the peer receives a prefix of what was sent (part of the cut Send, all
// of it, or none), then its Recv fails with ErrRecvFailed instead of
// waiting forever.
func cutSendEndsPeersStream(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		big := make([]byte, 128<<10) // byte i of the stream is byte(i)
		for i := range big {
			big[i] = byte(i)
		}
		sent, blocked := 0, false
		for range 1024 { // up to 128 MiB: more than any socket buffers
			err := simrt.Timeout(env, 100*time.Millisecond, func() error { return c.sink.Send(big) })
			if errors.Is(err, simrt.ErrTimeout) {
				blocked = true
				break
			}
			if err != nil {
				t.Errorf("Send: %v", err)
				return
			}
			sent += len(big)
		}
		if !blocked {
			t.Errorf("no Send ever parked on back-pressure")
			return
		}
		sent += len(big) // at most: the cut Send's bytes may all have made it
		got := 0
		var err error
		terr := simrt.Timeout(env, guard, func() error {
			for got <= sent {
				var p []byte
				if p, err = s.stream.Recv(max(1, len(s.stream.Peek(len(big))))); err != nil {
					return nil
				}
				for i, b := range p {
					if b != byte(got+i) {
						t.Errorf("peer of a cut Send: byte %d is %d, want %d", got+i, b, byte(got+i))
						return nil
					}
				}
				got += len(p)
			}
			t.Errorf("peer of a cut Send received %d bytes, more than the %d sent", got, sent)
			return nil
		})
		if terr != nil {
			t.Errorf("the peer of a cut Send still waits after %v, at byte %d of at most %d: want its stream to end", guard, got, sent)
			return
		}
		wantErr(t, err, simrt.ErrRecvFailed, "peer's Recv after the bytes of a cut Send")
		wantErr(t, c.sink.Send([]byte{1}), simrt.ErrClosed, "Send after a cut Send")
	})
}

// An abort cuts a task blocked in Accept short, on a listener another task
// bound; another task's Recv is not disturbed.
func abortCutsBlockedAccept(t T, env Env) {
	abortCut(t, env, cut{
		what: "Accept",
		block: func(_ Env, l simrt.Listener, _ conn) {
			discard(acceptOn(l)) // nobody dials
		},
	})
}

// simrt.Timeout cuts a blocked Accept short with ErrTimeout. (The listener
// stays open on every runtime: TimeoutInAcceptKeepsListener.)
func timeoutCutsBlockedAccept(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	timeoutCut(t, env, "Accept", func() error { return discard(acceptOn(l)) }) // nobody dials
}

// timeoutCut checks that simrt.Timeout cuts op, which blocks, short with
// ErrTimeout.
func timeoutCut(t T, env Env, what string, op func() error) {
	t.Helper()
	wantErr(t, simrt.Timeout(env, settle, op), simrt.ErrTimeout, what+" under Timeout")
}

// dialCases need a Dial that blocks (see RunDial): an abort cuts such a
// Dial short, and simrt.Timeout does too, and a Dial through another
// task's context is the caller's (handed.go).
var dialCases = []struct {
	name  string
	check func(t T, env Env, hang netip.AddrPort)
}{
	{"AbortCutsBlockedDial", abortCutsBlockedDial},
	{"TimeoutCutsBlockedDial", timeoutCutsBlockedDial},
	{"DialThroughAnotherContextIsTheCallers", dialThroughAnotherContextIsTheCallers},
}

// An abort cuts a task blocked in Dial short; another task's Recv is not
// disturbed.
func abortCutsBlockedDial(t T, env Env, hang netip.AddrPort) {
	abortCut(t, env, cut{
		what: "Dial",
		block: func(env Env, _ simrt.Listener, _ conn) {
			discard(env.Network().Dial(hang))
		},
	})
}

// simrt.Timeout cuts a blocked Dial short with ErrTimeout.
func timeoutCutsBlockedDial(t T, env Env, hang netip.AddrPort) {
	timeoutCut(t, env, "Dial of a hanging address", func() error {
		return discard(env.Network().Dial(hang))
	})
}
