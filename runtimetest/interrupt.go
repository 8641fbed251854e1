package runtimetest

import (
	"errors"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
)

var interruptCases = []testCase{
	{"TimeoutCutsRecvOnHandedConnection", "a Timeout of the task blocked in Recv cuts it short, also on a connection another task opened and handed over: Timeout returns ErrTimeout, and the stream is poisoned (ErrClosed)", timeoutCutsRecvOnHandedConnection},
	{"AbortCutsRecvOnHandedConnection", "aborting a task blocked in Recv unwinds it at once, also on a connection another task accepted and handed over (a handler spawned by an accept loop)", abortCutsRecvOnHandedConnection},
}

// liveness bounds how long a case waits for an interruption to take
// effect: far above any cut the case makes, and below the read timeout
// of a production network (60 s), which a runtime that did not cut the
// operation would wait for.
const liveness = 30 * time.Second

// halves is one end of a connection.
type halves struct {
	sink   simrt.Sink
	stream simrt.Stream
}

func (h halves) close() {
	h.sink.Close()
	h.stream.Close()
}

// connect binds a loopback listener, dials it from the calling task and
// accepts on a spawned task: it returns the dialled end and the accepted
// one, which the acceptor hands over and the caller's context owns.
func connect(t T, ctx simrt.Context) (client, server halves, ok bool) {
	t.Helper()
	l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Errorf("Bind: %v", err)
		return halves{}, halves{}, false
	}
	defer l.Close()
	got := simrt.NewOneshot[halves]()
	simrt.Spawn(ctx.Child("acceptor"), func(simrt.Context) error {
		_, si, st, err := l.Accept()
		if err == nil {
			got.Send(halves{si, st})
		}
		return err
	})
	si, st, err := ctx.Dial(l.Addr())
	if err != nil {
		t.Errorf("Dial: %v", err)
		return halves{}, halves{}, false
	}
	server, err = got.Recv(ctx)
	if err != nil {
		t.Errorf("Accept: %v", err)
		si.Close()
		st.Close()
		return halves{}, halves{}, false
	}
	return halves{si, st}, server, true
}

func timeoutCutsRecvOnHandedConnection(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		client, server, ok := connect(t, ctx)
		if !ok {
			return
		}
		defer client.close()
		// The handler did not open the connection; its first blocking
		// call is the timed Recv.
		handler := simrt.Spawn(ctx.Child("handler"), func(ctx simrt.Context) error {
			defer server.close()
			err := simrt.Timeout(ctx, 100*time.Millisecond, func() error {
				_, err := server.stream.Recv(1) // nothing is ever sent
				return err
			})
			if !errors.Is(err, simrt.ErrTimeout) {
				t.Errorf("Timeout of a Recv on a handed connection: %v, want ErrTimeout", err)
			}
			if _, err := server.stream.Recv(1); !errors.Is(err, simrt.ErrClosed) {
				t.Errorf("Recv after the cut one: %v, want ErrClosed", err)
			}
			return nil
		})
		if err := simrt.Timeout(ctx, liveness, func() error { _, err := handler.Await(ctx); return err }); err != nil {
			t.Errorf("the handler's Timeout did not cut its Recv within %v: %v", liveness, err)
		}
	})
}

func abortCutsRecvOnHandedConnection(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		client, server, ok := connect(t, ctx)
		if !ok {
			return
		}
		defer client.close()
		// An accept loop's shape: a task that holds the connection spawns
		// the handler, whose first blocking call is the Recv.
		about := simrt.NewOneshot[struct{}]()
		unwound := simrt.NewOneshot[struct{}]()
		handler := simrt.NewOneshot[*simrt.Handle[error]]()
		simrt.Spawn(ctx.Child("loop"), func(ctx simrt.Context) error {
			handler.Send(simrt.Spawn(ctx.Child("handler"), func(ctx simrt.Context) error {
				defer unwound.Send(struct{}{})
				defer server.close()
				about.Send(struct{}{}) // does not block
				_, err := server.stream.Recv(1)
				return err
			}))
			parkForever(ctx)
			return nil
		})
		h, _ := handler.Recv(ctx)
		about.Recv(ctx)
		h.Abort()
		if err := simrt.Timeout(ctx, liveness, func() error { _, err := unwound.Recv(ctx); return err }); err != nil {
			t.Errorf("an aborted handler still blocks in Recv after %v: %v", liveness, err)
		}
		if _, err := h.Await(ctx); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Await of the aborted handler: %v, want ErrClosed", err)
		}
	})
}
