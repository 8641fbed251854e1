package simrt

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt/rtapi"
)

// ConnRuntime is what the net.Conn adapters need from a runtime: parking,
// timers and the time in which deadlines are measured. Every Context
// satisfies it.
type ConnRuntime interface {
	rtapi.Plumbing
	// Now returns the runtime's current time.
	Now() time.Time
}

// NetConn adapts the two halves of a connection to a net.Conn, so that a
// library that takes a net.Conn and starts no goroutines of its own
// (crypto/tls, an HTTP/1 client or server loop driven by the caller, a
// protocol codec) runs unchanged on a simrt network, the simulated one
// included. Deadlines are in ctx's time: simulated time in the simulator.
//
// Read returns the bytes already buffered, or parks for at least one; it
// returns io.EOF once the peer has closed its sink, and on every later
// Read. Write sends all of p.
// As on a TCP net.Conn, a call on a closed conn fails with an error
// matching net.ErrClosed (SetDeadline and friends included), and a
// deadline already past fails Read and Write at once with an error
// matching os.ErrDeadlineExceeded, even with bytes buffered, and harms
// nothing: a later deadline makes the conn usable again. A deadline that
// expires while a Read or Write is parked abandons it, which poisons that
// half, as in the rest of simrt (unlike net.Conn): the operation returns
// an error matching os.ErrDeadlineExceeded and that direction is then
// unusable. Close closes both halves; a Read or Write parked meanwhile, on
// another task, returns an error matching net.ErrClosed. Closing again
// does nothing and returns nil.
//
// Use the conn from tasks of ctx's runtime; one Read and one Write may be
// in progress at once.
//
// A library that computes deadlines from the wall clock breaks
// determinism: tls.Conn.Close, for one, sets a write deadline of
// time.Now()+5s. In a simulation, close the net.Conn under the tls.Conn,
// and give tls.Config a Time of ctx.Now.
func NetConn(ctx ConnRuntime, sink Sink, stream Stream, local, remote netip.AddrPort) net.Conn {
	return &netConn{rt: ctx, sink: sink, stream: stream, local: local, remote: remote}
}

type netConn struct {
	rt            ConnRuntime
	sink          Sink
	stream        Stream
	local, remote netip.AddrPort

	closed atomic.Bool // Close was called
	eof    bool        // a Read has returned io.EOF (owned by the reader)

	mu            sync.Mutex
	readDeadline  time.Time
	writeDeadline time.Time
}

// expired reports whether the deadline dl (zero: none) has passed.
func (c *netConn) expired(dl time.Time) bool { return !dl.IsZero() && !dl.After(c.rt.Now()) }

// within runs op under the deadline dl (zero: none), which must not have
// passed.
func (c *netConn) within(dl time.Time, op func() error) error {
	if dl.IsZero() {
		return op()
	}
	d := dl.Sub(c.rt.Now())
	if d <= 0 {
		return os.ErrDeadlineExceeded
	}
	err := Timeout(c.rt, d, op)
	if errors.Is(err, ErrTimeout) {
		return os.ErrDeadlineExceeded
	}
	return err
}

func (c *netConn) deadlines() (r, w time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readDeadline, c.writeDeadline
}

// Read implements net.Conn.
func (c *netConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opErr("read", net.ErrClosed)
	}
	if len(p) == 0 {
		return 0, nil
	}
	dl, _ := c.deadlines()
	if c.expired(dl) {
		return 0, c.opErr("read", os.ErrDeadlineExceeded)
	}
	if c.eof {
		return 0, io.EOF // again, as a net.Conn does
	}
	if k := len(c.stream.Peek(len(p))); k > 0 {
		return c.recv(p, k)
	}
	var first []byte
	err := c.within(dl, func() error {
		var err error
		first, err = c.stream.Recv(1)
		return err
	})
	if err != nil {
		return 0, c.readErr(err)
	}
	p[0] = first[0]
	if k := len(c.stream.Peek(len(p) - 1)); k > 0 {
		n, err := c.recv(p[1:], k)
		return n + 1, err
	}
	return 1, nil
}

// recv takes k bytes the stream already buffers.
func (c *netConn) recv(p []byte, k int) (int, error) {
	b, err := c.stream.Recv(k)
	if err != nil {
		return 0, c.readErr(err)
	}
	return copy(p, b), nil
}

func (c *netConn) readErr(err error) error {
	switch {
	case errors.Is(err, ErrRecvFailed):
		c.eof = true
		return io.EOF
	case errors.Is(err, ErrClosed):
		return c.opErr("read", net.ErrClosed)
	}
	return c.opErr("read", err)
}

// Write implements net.Conn.
func (c *netConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opErr("write", net.ErrClosed)
	}
	_, dl := c.deadlines()
	if c.expired(dl) {
		return 0, c.opErr("write", os.ErrDeadlineExceeded)
	}
	err := c.within(dl, func() error { return c.sink.Send(p) })
	if err != nil {
		if errors.Is(err, ErrClosed) {
			err = net.ErrClosed
		}
		return 0, c.opErr("write", err)
	}
	return len(p), nil
}

func (c *netConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Close implements net.Conn: it closes both halves.
func (c *netConn) Close() error {
	c.closed.Store(true)
	c.sink.Close()
	c.stream.Close()
	return nil
}

// LocalAddr implements net.Conn.
func (c *netConn) LocalAddr() net.Addr { return net.TCPAddrFromAddrPort(c.local) }

// RemoteAddr implements net.Conn.
func (c *netConn) RemoteAddr() net.Addr { return net.TCPAddrFromAddrPort(c.remote) }

// SetDeadline implements net.Conn, in the runtime's time.
func (c *netConn) SetDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline, c.writeDeadline = t, t
	return nil
}

// SetReadDeadline implements net.Conn, in the runtime's time.
func (c *netConn) SetReadDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline = t
	return nil
}

// SetWriteDeadline implements net.Conn, in the runtime's time.
func (c *netConn) SetWriteDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeDeadline = t
	return nil
}

// NetListener adapts a Listener to a net.Listener whose Accept returns
// NetConn connections over ctx.
func NetListener(ctx ConnRuntime, l Listener) net.Listener {
	return &netListener{rt: ctx, l: l}
}

type netListener struct {
	rt ConnRuntime
	l  Listener
}

// Accept implements net.Listener.
func (l *netListener) Accept() (net.Conn, error) {
	peer, sink, stream, err := l.l.Accept()
	if err != nil {
		if errors.Is(err, ErrClosed) {
			err = net.ErrClosed
		}
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: err}
	}
	return NetConn(l.rt, sink, stream, l.l.Addr(), peer), nil
}

// Close implements net.Listener.
func (l *netListener) Close() error { return l.l.Close() }

// Addr implements net.Listener.
func (l *netListener) Addr() net.Addr { return net.TCPAddrFromAddrPort(l.l.Addr()) }
