package nettest

import (
	"github.com/simrt/simrt"
)

// The cases in this file pin what an abort does to the connections and
// listeners the aborted task opened, the same on both runtimes: nothing.
// An abort cuts only the call the aborted task is blocked in (abort.go);
// a connection it dialled or accepted, or that a listener it bound
// accepted, keeps working for whichever task holds it (a task it was
// handed to, or a struct that outlives the task), until that task closes
// it or the runtime shuts down. The simulator's network knows no owners;
// production's keeps them only to close what is left at shutdown.
//
// They also pin what an interrupted Send or Recv leaves behind when the
// task was interrupted before the call could block (an abort of the task
// by itself, which takes effect at its next park): the call unwinds the
// task and poisons its half, though it took no byte, exactly as a call cut
// while blocked does. Which of the two happens in production is a matter
// of timing, so the outcome must not depend on it.

// owned is what a task opened through its own context and handed over.
type owned struct {
	c conn
	l simrt.Listener
}

// opener spawns a task that calls open with its own network (see
// ownNetwork), hands over what open returned, and then calls hold, which
// blocks until the task is aborted; it sends on ended when it ends,
// however it ends. It returns what open returned, or false (having
// reported why) if open failed.
func opener(t T, env Env, what string, open func(n simrt.Network) (owned, error), hold func(env Env, o owned)) (h *simrt.Handle[struct{}], ended *simrt.Oneshot[struct{}], o owned, ok bool) {
	t.Helper()
	got := simrt.NewOneshot[owned]()
	ended = simrt.NewOneshot[struct{}]()
	h = env.Spawn(func(env Env) {
		defer ended.Send(struct{}{})
		o, err := open(ownNetwork(env))
		if err != nil {
			t.Errorf("%s through the task's own context: %v", what, err)
			got.Close()
			return
		}
		got.Send(o)
		hold(env, o)
	})
	o, err := got.Recv(env)
	return h, ended, o, err == nil
}

// holdForever parks the task on a oneshot nobody sends on, the way a task
// waits on something that has nothing to do with the connection.
func holdForever(env Env, _ owned) {
	simrt.NewOneshot[struct{}]().Recv(env)
}

// carries checks that the connection whose ends are c and s carries bytes
// both ways.
func carries(t T, c, s conn, what string) {
	t.Helper()
	if send(t, c.sink, what+": sink", clientData) {
		expect(t, s.stream, clientData, what+": peer's stream")
	}
	if send(t, s.sink, what+": peer's sink", serverData) {
		expect(t, c.stream, serverData, what+": stream")
	}
}

func dialOwn(addr simrt.Listener) func(n simrt.Network) (owned, error) {
	return func(n simrt.Network) (owned, error) {
		si, st, err := n.Dial(addr.Addr())
		return owned{c: conn{si, st}}, err
	}
}

// Aborting the task that dialled a connection through its own context,
// while it waits on something else, leaves the connection open: the task
// it was handed to sends and receives on it both ways.
func abortOfDialerKeepsConnection(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	h, ended, o, ok := opener(t, env, "Dial", dialOwn(l), holdForever)
	if !ok {
		return
	}
	defer o.c.close()
	s, ok := accept(t, l)
	if !ok {
		return
	}
	defer s.close()
	abortBlocked(t, env, "task that dialled", h, ended)
	carries(t, o.c, s, "connection of an aborted dialer")
}

// Aborting the task that dialled a connection, while it is blocked in Recv
// on the connection's stream, cuts that Recv and leaves the sink, handed
// to another task, working.
func abortOfDialerInRecvKeepsSink(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	h, ended, o, ok := opener(t, env, "Dial", dialOwn(l), func(_ Env, o owned) {
		o.c.stream.Recv(len(serverData)) // nothing is sent
	})
	if !ok {
		return
	}
	defer o.c.close()
	s, ok := accept(t, l)
	if !ok {
		return
	}
	defer s.close()
	abortBlocked(t, env, "dialer blocked in Recv", h, ended)
	if send(t, o.c.sink, "sink of an aborted dialer cut in Recv", clientData) {
		expect(t, s.stream, clientData, "peer of an aborted dialer cut in Recv")
	}
}

// Aborting the task that bound a listener through its own context, while
// it waits on something else, leaves open the connections the listener
// accepted before: the one the task accepted itself and handed over, and
// the one another task accepted.
func abortOfListenerOwnerKeepsAcceptedConnections(t T, env Env) {
	took := simrt.NewOneshot[conn]()
	h, ended, o, ok := opener(t, env, "Bind", func(n simrt.Network) (owned, error) {
		l, err := n.Bind(anyPort)
		return owned{l: l}, err
	}, func(env Env, o owned) {
		if s, ok := accept(t, o.l); ok {
			took.Send(s)
		} else {
			took.Close()
		}
		holdForever(env, o)
	})
	if !ok {
		return
	}
	defer o.l.Close()
	d, ok := dial(t, env, o.l.Addr()) // the task's Accept, the only one waiting, takes it
	if !ok {
		return
	}
	defer d.close()
	ds, err := took.Recv(env)
	if err != nil {
		return // Accept failed
	}
	defer ds.close()
	c, s, ok := connect(t, env, o.l) // accepted by the caller, on the task's listener
	if !ok {
		return
	}
	defer c.close()
	defer s.close()
	abortBlocked(t, env, "task that bound the listener", h, ended)
	carries(t, d, ds, "connection the aborted listener owner accepted")
	carries(t, c, s, "connection another task accepted on the aborted owner's listener")
}

// A task that aborts itself keeps running until its next park; a Recv it
// then calls, with no byte arrived, unwinds it and poisons the stream
// though it took nothing: the next Recv, by the task the stream goes back
// to, fails with ErrClosed even once the peer has sent. The sink keeps
// working.
func interruptedRecvPoisonsStream(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		selfAbortThen(t, env, "Recv", func() {
			c.stream.Recv(len(clientData)) // nothing has been sent
		})
		send(t, s.sink, "peer, after the interrupted Recv", clientData)
		if p := c.stream.Peek(len(clientData)); len(p) != 0 {
			t.Errorf("Peek after an interrupted Recv = %q, want nothing (the stream is poisoned)", p)
		}
		_, err := c.stream.Recv(len(clientData))
		wantErr(t, err, simrt.ErrClosed, "Recv after a Recv that unwound its interrupted task")
		if send(t, c.sink, "sink beside the poisoned stream", serverData) {
			expect(t, s.stream, serverData, "peer of the poisoned stream")
		}
	})
}

// selfAbortThen runs op on a new task that has aborted itself, and checks
// that op unwinds the task (what op returns is not looked at).
func selfAbortThen(t T, env Env, what string, op func()) {
	t.Helper()
	self := simrt.NewOneshot[*simrt.Handle[struct{}]]()
	ended := simrt.NewOneshot[struct{}]()
	returned := false
	h := env.Spawn(func(env Env) {
		defer ended.Send(struct{}{})
		me, _ := self.Recv(env)
		me.Abort() // from here an interrupt is pending: the next park unwinds
		op()
		returned = true
	})
	self.Send(h)
	if terr := simrt.Timeout(env, guard, func() error { _, err := ended.Recv(env); return err }); terr != nil {
		t.Errorf("%s of a task that aborted itself still blocks after %v", what, guard)
		return
	}
	if returned {
		t.Errorf("%s of a task that aborted itself returned; want it to unwind the task", what)
	}
}

// A task that aborts itself keeps running until its next park; a Send it
// then calls unwinds it and poisons the sink, whether or not the bytes
// would have fitted the connection's buffers (production cannot know
// before the call whether it would block): the next Send fails with
// ErrClosed, and the peer's stream ends (a Send cut while blocked shuts
// the write half down, CutSendEndsPeersStream). The stream keeps working.
func interruptedSendPoisonsSink(t T, env Env) {
	withConnection(t, env, func(c, s conn) {
		selfAbortThen(t, env, "Send", func() {
			c.sink.Send(clientData)
		})
		wantErr(t, c.sink.Send(clientData), simrt.ErrClosed, "Send after a Send that unwound its interrupted task")
		var err error
		if terr := simrt.Timeout(env, guard, func() error { _, err = s.stream.Recv(1); return nil }); terr != nil {
			t.Errorf("the peer of a Send that unwound its interrupted task still waits after %v: want its stream to end", guard)
		} else {
			wantErr(t, err, simrt.ErrRecvFailed, "peer's Recv after a Send that unwound its interrupted task")
		}
		if send(t, s.sink, "peer of the poisoned sink", serverData) {
			expect(t, c.stream, serverData, "stream beside the poisoned sink")
		}
	})
}
