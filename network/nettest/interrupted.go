package nettest

import (
	"github.com/simrt/simrt"
)

// The cases in this file pin what an interrupted call leaves behind, the
// same on both runtimes. An Accept cut short (by simrt.Timeout, or by an
// abort of the task blocked in it, even the listener's owner) leaves the
// listener open: the next Accept, of the same task or another, gets the
// next connection, and another task waiting in Accept meanwhile is not
// disturbed. A Recv cut short by simrt.Timeout poisons the stream, bytes
// already buffered included, and leaves the sink and the peer usable.

// acceptsFresh dials l and checks that Accept, run by a new task when
// other is set or else by the caller, gets that connection and that it
// carries bytes both ways.
func acceptsFresh(t T, env Env, l simrt.Listener, what string, other bool) {
	t.Helper()
	got := simrt.NewOneshot[conn]()
	acc := func(Env) {
		if s, ok := accept(t, l); ok {
			got.Send(s)
		}
	}
	var wait func()
	if other {
		wait = env.Go(acc)
	}
	c, ok := dial(t, env, l.Addr())
	if !other {
		acc(env)
	}
	if ok {
		defer c.close()
		var s conn
		if terr := simrt.Timeout(env, guard, func() error { s, _ = got.Recv(env); return nil }); terr != nil {
			t.Errorf("%s: the Accept of a fresh dial still blocks after %v", what, guard)
			l.Close() // ends it
		} else {
			defer s.close()
			if send(t, c.sink, what+": dialer", clientData) && expect(t, s.stream, clientData, what+": accepted") &&
				send(t, s.sink, what+": accepted", serverData) {
				expect(t, c.stream, serverData, what+": dialer")
			}
		}
	}
	if wait != nil {
		wait()
	}
}

// An Accept cut short by simrt.Timeout leaves the listener open: the same
// task's next Accept, then another task's, each get a fresh dial's
// connection.
func timeoutInAcceptKeepsListener(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	timeoutCut(t, env, "Accept", func() error { return discard(acceptOn(l)) }) // nobody dials
	acceptsFresh(t, env, l, "same task's Accept after a Timeout cut one", false)
	timeoutCut(t, env, "second Accept", func() error { return discard(acceptOn(l)) })
	acceptsFresh(t, env, l, "another task's Accept after a Timeout cut one", true)
}

// Aborting a task blocked in Accept, while another task waits in Accept on
// the same listener, leaves the listener open: the other task gets the
// next dial's connection, and so does a later Accept.
func abortInAcceptKeepsListener(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	h, ended := blocked(env, func(Env) { discard(acceptOn(l)) }) // nobody dials yet
	other := simrt.NewOneshot[arrival]()
	waitOther := env.Go(func(env Env) {
		si, st, err := acceptOn(l)
		other.Send(arrival{accepted: true, c: conn{si, st}, err: err})
	})
	if !abortBlocked(t, env, "Accept beside another", h, ended) {
		return
	}
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		var a arrival
		if terr := simrt.Timeout(env, guard, func() error { a, _ = other.Recv(env); return nil }); terr != nil {
			t.Errorf("the other task's Accept still blocks after %v though a peer dialled", guard)
		} else if a.err != nil {
			t.Errorf("the other task's Accept, after an abort of a task beside it: %v", a.err)
		} else {
			defer a.c.close()
			if send(t, c.sink, "dialer", clientData) {
				expect(t, a.c.stream, clientData, "the other task's accepted connection")
			}
		}
	}
	acceptsFresh(t, env, l, "Accept after an abort of a task beside it", false)
	l.Close() // ends the other Accept if it still waits
	waitOther()
}

// Aborting the task that bound a listener through its own context (its
// owner), while it is blocked in Accept on it, leaves the listener open:
// the simulator's network knows no owners, and production's closes only
// at shutdown. Another task accepts the next dial.
func abortOfListenerOwnerKeepsListener(t T, env Env) {
	bound := simrt.NewOneshot[simrt.Listener]()
	h, ended := blocked(env, func(env Env) {
		l, err := ownNetwork(env).Bind(anyPort)
		if err != nil {
			t.Errorf("Bind(%v) through the task's own context: %v", anyPort, err)
			bound.Close()
			return
		}
		bound.Send(l)
		discard(acceptOn(l)) // nobody dials yet
	})
	l, err := bound.Recv(env)
	if err != nil {
		return // Bind failed
	}
	defer l.Close()
	if abortBlocked(t, env, "Accept of the listener's owner", h, ended) {
		acceptsFresh(t, env, l, "Accept after an abort of the listener's owner", true)
	}
}

// A Recv cut short by simrt.Timeout while part of its bytes have arrived
// poisons the stream: the next Recv fails with ErrClosed, Peek shows
// nothing (the buffered bytes are lost), and later bytes from the peer are
// not delivered. The sink keeps working, and so does the peer's Send.
func timeoutInRecvPoisonsStream(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		part := clientData[:5]
		if !send(t, s.sink, "peer, part of a frame", part) {
			return
		}
		for range 100 { // until the part has arrived, up to 100 settles
			if len(c.stream.Peek(len(part))) == len(part) {
				break
			}
			env.Sleep(settle)
		}
		timeoutCut(t, env, "Recv of a frame partly arrived", func() error {
			_, err := c.stream.Recv(len(clientData))
			return err
		})
		if p := c.stream.Peek(len(clientData)); len(p) != 0 {
			t.Errorf("Peek after a Recv cut by a Timeout = %q, want nothing (the stream is poisoned)", p)
		}
		send(t, s.sink, "peer, after its reader's Recv was cut", clientData[len(part):])
		_, err := c.stream.Recv(1)
		wantErr(t, err, simrt.ErrClosed, "Recv after a Recv cut by a Timeout")
		if send(t, c.sink, "sink beside the poisoned stream", serverData) {
			expect(t, s.stream, serverData, "peer of the poisoned stream")
		}
	})
}
