package nettest

import (
	"github.com/simrt/simrt"
)

// arrival is the first sign of where a connection went: another task's
// Accept returned (with the connection, or an error), or the connection's
// dialer saw it fail.
type arrival struct {
	accepted bool // the other Accept returned; otherwise the dialer's Recv did
	c        conn
	err      error
}

// A task aborted while blocked in Accept just as a connection arrives for
// it (in the simulator: the connection has woken it, and it has not run
// yet) does not strand the connection. Another task blocked in Accept on
// the same listener gets it, or, if the aborted task took it, the
// connection fails at its dialer. (Production's task may take it before
// the abort lands; the listener stays open on every runtime.)
// Either way neither the other Accept nor the dialer hangs.
func abortedAcceptPassesConnectionOn(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	took := simrt.NewOneshot[conn]() // production's task may take it before the abort
	h, ended := blocked(env, func(Env) {
		if si, st, err := acceptOn(l); err == nil {
			took.Send(conn{si, st}) // kept open: closing it could fail the Dial
		}
	})
	env.Sleep(settle) // the task to abort is the first to wait in Accept
	first := simrt.NewChan[arrival](2)
	waitAccept := env.Go(func(env Env) {
		si, st, err := acceptOn(l)
		first.Send(env, arrival{accepted: true, c: conn{si, st}, err: err})
	})
	env.Sleep(settle)
	c, ok := dial(t, env, l.Addr())
	h.Abort() // at once: in the simulator the woken task has not run yet
	if !ok {
		return
	}
	defer c.close()
	waitDialer := env.Go(func(env Env) {
		_, err := c.stream.Recv(1) // nothing is sent: only a failure returns
		first.Send(env, arrival{err: err})
	})
	if terr := simrt.Timeout(env, guard, func() error { _, err := ended.Recv(env); return err }); terr != nil {
		t.Errorf("the aborted Accept still blocks after %v", guard)
	}
	if tc, ok := took.TryRecv(); ok {
		tc.close() // the aborted task took the connection: nothing was stranded
	} else {
		checkArrival(t, env, c, first)
	}
	c.close() // ends the dialer's Recv
	l.Close() // ends the other Accept, if it is still waiting
	waitDialer()
	waitAccept()
}

// checkArrival checks the first arrival on first: within guard, and a
// connection that works (or ErrClosed) if the other Accept returned, an
// error if the dialer's Recv did.
func checkArrival(t T, env Env, c conn, first *simrt.Chan[arrival]) {
	t.Helper()
	var a arrival
	if terr := simrt.Timeout(env, guard, func() error { a, _ = first.Recv(env); return nil }); terr != nil {
		t.Errorf("the connection that arrived for the aborted Accept is stranded: after %v "+
			"another task's Accept has not got it and its dialer has not seen it fail", guard)
		return
	}
	switch {
	case !a.accepted:
		if a.err == nil {
			t.Errorf("the dialer's Recv returned without an error; nothing was sent")
		}
	case a.err != nil:
		wantErr(t, a.err, simrt.ErrClosed, "another task's Accept, after the cut closed the listener")
	default:
		defer a.c.close()
		if send(t, c.sink, "dialer of the connection passed on", clientData) {
			expect(t, a.c.stream, clientData, "Accept that got the connection passed on")
		}
	}
}
