package nettest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

// The cases in this file pin rules the reference does not test but both
// runtimes must share: the maximum receive size, when a Send counts as
// delivered, and Close from another task cutting a parked operation. They
// assume the network under test keeps the default maximum receive size,
// simrt.DefaultMaxRecvSize.

// guard bounds an operation a broken implementation would leave parked, so
// that the case fails instead of hanging.
const guard = 10 * time.Second

// A Recv above the maximum receive size fails at once, whether or not
// bytes are buffered, with an error matching both ErrRecvTooLarge and
// ErrRecvFailed, and poisons the stream; the sink stays usable.
func recvAboveMaximumFails(t T, env Env) {
	recvOutOfRangeFails(t, env, []int{simrt.DefaultMaxRecvSize + 1, math.MaxInt})
}

// A Recv of a negative length (a length read from a peer that wrapped
// around) fails as one above the maximum does, instead of panicking: with
// a runtime that does not catch panics, a panic would take the whole
// process down on one bad frame from a peer.
func recvOfNegativeLengthFails(t T, env Env) {
	recvOutOfRangeFails(t, env, []int{-1, math.MinInt})
}

// recvOutOfRangeFails checks, for each n, that Recv(n) fails at once with
// ErrRecvTooLarge, with bytes buffered, and poisons only the stream.
func recvOutOfRangeFails(t T, env Env, sizes []int) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	for _, n := range sizes {
		wait := serveOne(t, env, l, func(_ Env, c conn) {
			defer c.close()
			send(t, c.sink, "server", serverData)
			expect(t, c.stream, clientData, "server")
		})
		c, ok := dial(t, env, l.Addr())
		if !ok {
			wait()
			return
		}
		expect(t, c.stream, serverData[:1], "client") // bytes are now buffered
		if p := c.stream.Peek(math.MaxInt); !bytes.HasPrefix(serverData[1:], p) {
			t.Errorf("Peek(math.MaxInt) = %q, want a prefix of %q", p, serverData[1:])
		}
		var err error
		if terr := simrt.Timeout(env, guard, func() error {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("panic: %v", v)
				}
			}()
			_, err = c.stream.Recv(n)
			return nil
		}); terr != nil {
			t.Errorf("Recv(%d) parked instead of failing at once", n)
		}
		what := fmt.Sprintf("Recv(%d)", n)
		wantErr(t, err, simrt.ErrRecvTooLarge, what)
		wantErr(t, err, simrt.ErrRecvFailed, what)
		_, err = c.stream.Recv(1)
		wantErr(t, err, simrt.ErrClosed, "Recv after "+what)
		send(t, c.sink, "client sink after its stream failed", clientData)
		c.close()
		wait()
	}
}

// A Recv of the maximum receive size is accepted, and reserves memory for
// the bytes that arrive, not for the size asked: with four bytes sent and
// the sink closed it fails with ErrRecvFailed having allocated far less
// than the size.
func largeRecvAllocatesAsBytesArrive(t T, env Env) {
	const n = simrt.DefaultMaxRecvSize
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	wait := serveOne(t, env, l, func(_ Env, c conn) {
		defer c.stream.Close()
		send(t, c.sink, "server", []byte("four"))
		c.sink.Close()
		c.stream.Recv(1) // hold the connection until the client is done
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := c.stream.Recv(n)
		runtime.ReadMemStats(&after)
		wantErr(t, err, simrt.ErrRecvFailed, "Recv(DefaultMaxRecvSize) of a 4-byte stream whose sink closed")
		if errors.Is(err, simrt.ErrRecvTooLarge) {
			t.Errorf("Recv(DefaultMaxRecvSize) = %v: the maximum itself must be accepted", err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got >= n/4 {
			t.Errorf("Recv(%d) with 4 bytes arrived allocated %d bytes, want well under %d", n, got, n)
		}
		c.close()
	}
	wait()
}

// A Send the peer receives completely counts as delivered even when the
// peer closes its stream right after: Send returns nil at every size,
// below, at and above the connection's buffer (64 KiB in the simulator).
func sendTakenByPeerSucceeds(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	for _, size := range []int{64<<10 - 1, 64 << 10, 64<<10 + 1, 128<<10 + 1} {
		msg := make([]byte, size)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		wait := serveOne(t, env, l, func(_ Env, c conn) {
			expect(t, c.stream, msg, "server")
			c.close() // at once: the client's Send may still be parked
		})
		c, ok := dial(t, env, l.Addr())
		if !ok {
			wait()
			return
		}
		if err := c.sink.Send(msg); err != nil {
			t.Errorf("Send(%d bytes) the peer received whole, then closed: %v, want nil", size, err)
		}
		wait() // before closing: a reset would discard what the server has not read
		c.close()
	}
}

// cutParked runs op on a new task, lets it park for wait, runs cut from
// the calling task, and returns op's error once op has returned. It fails
// the test if op was woken by its guard rather than by the cut.
func cutParked(t T, env Env, wait time.Duration, op func() error, cut func()) error {
	var err error
	done := env.Go(func(env Env) {
		if terr := simrt.Timeout(env, guard, func() error {
			err = op()
			return nil
		}); terr != nil {
			err = terr
		}
	})
	env.Sleep(wait)
	cut()
	var late atomic.Bool
	tm := env.AfterFunc(guard/2, func() { late.Store(true) })
	done()
	tm.Stop()
	if late.Load() {
		t.Errorf("the parked operation returned more than %v after the cut: the cut did not wake it", guard/2)
	}
	return err
}

// Close of a stream from another task cuts a Recv parked on it, as
// net.Conn's Close does: the Recv returns ErrClosed, and the sink of the
// connection stays usable.
func closeCutsParkedRecv(t T, env Env) {
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
		err := cutParked(t, env, 10*time.Millisecond, func() error {
			_, err := c.stream.Recv(100)
			return err
		}, func() { c.stream.Close() })
		wantErr(t, err, simrt.ErrClosed, "Recv cut by Close of its stream")
		if p := c.stream.Peek(10); len(p) != 0 {
			t.Errorf("Peek after Close = %q, want empty", p)
		}
		send(t, c.sink, "client sink after its stream was closed", clientData)
	}
	wait()
}

// Close of a sink from another task cuts a Send parked on back-pressure:
// the Send returns ErrClosed, and the stream of the connection stays
// usable.
func closeCutsParkedSend(t T, env Env) {
	l := bind(t, env)
	if l == nil {
		return
	}
	defer l.Close()
	done := simrt.NewOneshot[struct{}]()
	wait := serveOne(t, env, l, func(env Env, c conn) {
		defer c.close()
		done.Recv(env) // receive nothing until the client has closed its sink
		send(t, c.sink, "server", serverData)
		c.stream.Recv(1) // hold the connection until the client is done
	})
	c, ok := dial(t, env, l.Addr())
	if ok {
		defer c.close()
		sends := 0
		big := make([]byte, 128<<10)
		err := cutParked(t, env, 50*time.Millisecond, func() error {
			for range 1024 { // up to 128 MiB: more than any socket buffers
				if err := c.sink.Send(big); err != nil {
					return err
				}
				sends++
			}
			return nil
		}, func() { c.sink.Close() })
		wantErr(t, err, simrt.ErrClosed, "Send cut by Close of its sink")
		if sends == 1024 {
			t.Errorf("no Send ever parked on back-pressure")
		}
		done.Send(struct{}{})
		expect(t, c.stream, serverData, "client stream after its sink was closed")
	}
	done.Send(struct{}{})
	wait()
}
