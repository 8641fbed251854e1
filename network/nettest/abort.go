package nettest

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
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
func abortBlocked(t *testing.T, env Env, what string, h *simrt.Handle[struct{}], ended *simrt.Oneshot[struct{}]) bool {
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

func newBystander(t *testing.T, env Env, l simrt.Listener) (*bystander, bool) {
	c, ok := dial(t, env, l.Addr())
	if !ok {
		return nil, false
	}
	s, ok := accept(t, l)
	if !ok {
		c.close()
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
func (b *bystander) check(t *testing.T, env Env, what string) {
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

// An abort cuts a task blocked in Recv short; the connection's other half
// and another task's Recv are not disturbed. (Whether the stream is
// poisoned depends on whether the Recv had begun when the abort came,
// which a case on real sockets cannot know.)
func abortCutsBlockedRecv(t *testing.T, env Env) {
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
	c, ok := dial(t, env, l.Addr())
	if !ok {
		return
	}
	defer c.close()
	s, ok := accept(t, l)
	if !ok {
		return
	}
	defer s.close()
	h, ended := blocked(env, func(Env) { c.stream.Recv(len(serverData)) }) // nothing is sent
	abortBlocked(t, env, "Recv", h, ended)
	if send(t, c.sink, "sink of the aborted Recv's connection", clientData) {
		expect(t, s.stream, clientData, "peer of the aborted Recv")
	}
	by.check(t, env, "Recv")
}

// An abort cuts a task blocked in Send on back-pressure short; the
// connection's other half and another task's Recv are not disturbed.
func abortCutsBlockedSend(t *testing.T, env Env) {
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
	c, ok := dial(t, env, l.Addr())
	if !ok {
		return
	}
	defer c.close()
	s, ok := accept(t, l)
	if !ok {
		return
	}
	defer s.close()
	big := make([]byte, 128<<10)
	var sendErr error
	h, ended := blocked(env, func(Env) {
		for range 1024 { // up to 128 MiB: more than any socket buffers
			if sendErr = c.sink.Send(big); sendErr != nil {
				return
			}
		}
		sendErr = errors.New("no Send blocked on back-pressure") // the peer reads nothing
	})
	if abortBlocked(t, env, "Send", h, ended) && sendErr != nil && !errors.Is(sendErr, simrt.ErrClosed) {
		t.Errorf("the aborted Send returned %v, want ErrClosed or an unwound task", sendErr)
	}
	if send(t, s.sink, "peer of the aborted Send", serverData) {
		expect(t, c.stream, serverData, "stream of the aborted Send's connection")
	}
	by.check(t, env, "Send")
}

// An abort cuts a task blocked in Accept short, on a listener another task
// bound; another task's Recv is not disturbed.
func abortCutsBlockedAccept(t *testing.T, env Env) {
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
	h, ended := blocked(env, func(Env) {
		if _, si, st, err := l.Accept(); err == nil { // nobody dials
			si.Close()
			st.Close()
		}
	})
	abortBlocked(t, env, "Accept", h, ended)
	by.check(t, env, "Accept")
}

// simrt.Timeout cuts a blocked Accept short with ErrTimeout. (What the
// listener does next differs: the simulator's stays open, production's is
// closed by the cut.)
func timeoutCutsBlockedAccept(t *testing.T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	err := simrt.Timeout(env, settle, func() error {
		_, si, st, err := l.Accept() // nobody dials
		if err == nil {
			si.Close()
			st.Close()
		}
		return err
	})
	wantErr(t, err, simrt.ErrTimeout, "Accept under Timeout")
}

// DialHarness runs one case of RunDial: like Harness, and hang gives an
// address that a Dial of the network under test blocks on, until it times
// out or is cut short (for TCP, a listener whose accept queue is full; in
// a simulation, a host behind a clog).
type DialHarness func(t *testing.T, body func(env Env, hang netip.AddrPort))

// RunDial runs the cases that need a Dial that blocks, each through h:
// an abort cuts such a Dial short, and simrt.Timeout does too.
func RunDial(t *testing.T, h DialHarness) {
	t.Run("AbortCutsBlockedDial", func(t *testing.T) {
		h(t, func(env Env, hang netip.AddrPort) { abortCutsBlockedDial(t, env, hang) })
	})
	t.Run("TimeoutCutsBlockedDial", func(t *testing.T) {
		h(t, func(env Env, hang netip.AddrPort) { timeoutCutsBlockedDial(t, env, hang) })
	})
}

// An abort cuts a task blocked in Dial short; another task's Recv is not
// disturbed.
func abortCutsBlockedDial(t *testing.T, env Env, hang netip.AddrPort) {
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
	h, ended := blocked(env, func(env Env) {
		if si, st, err := env.Network().Dial(hang); err == nil {
			si.Close()
			st.Close()
		}
	})
	abortBlocked(t, env, "Dial", h, ended)
	by.check(t, env, "Dial")
}

// simrt.Timeout cuts a blocked Dial short with ErrTimeout.
func timeoutCutsBlockedDial(t *testing.T, env Env, hang netip.AddrPort) {
	err := simrt.Timeout(env, settle, func() error {
		si, st, err := env.Network().Dial(hang)
		if err == nil {
			si.Close()
			st.Close()
		}
		return err
	})
	wantErr(t, err, simrt.ErrTimeout, "Dial of a hanging address under Timeout")
}
