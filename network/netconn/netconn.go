// Package netconn adapts a simrt connection to a net.Conn and a simrt
// listener to a net.Listener, so that a library written against package net
// runs on either runtime's network, the simulated one included, with its
// deadlines measured in runtime time.
//
// The smallest use, inside a task:
//
//	sink, stream, err := ctx.Dial(addr)
//	if err != nil {
//		return err
//	}
//	conn := netconn.New(ctx, sink, stream, netip.AddrPort{}, addr)
//	defer conn.Close()
package netconn

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
)

// Runtime is what the net.Conn adapters need from a runtime: parking,
// timers and the time in which deadlines are measured. Every Context
// satisfies it.
type Runtime interface {
	simrt.Caller
	// Now returns the runtime's current time.
	Now() time.Time
}

// New adapts the two halves of a connection to a net.Conn, so that a
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
// in progress at once. A library that uses the conn from goroutines of its
// own (net/rpc's client and server do) runs in production only: in the
// simulator such a goroutine panics, saying that a goroutine simrt did not
// start used the connection (docs/PORTING.md, "What does not port").
//
// A library that computes deadlines from the wall clock breaks
// determinism: tls.Conn.Close, for one, sets a write deadline of
// time.Now()+5s. In a simulation, close the net.Conn under the tls.Conn,
// and give tls.Config a Time of ctx.Now.
func New(ctx Runtime, sink simrt.Sink, stream simrt.Stream, local, remote netip.AddrPort) net.Conn {
	return &conn{rt: ctx, sink: sink, stream: stream, local: local, remote: remote}
}

type conn struct {
	rt            Runtime
	sink          simrt.Sink
	stream        simrt.Stream
	local, remote netip.AddrPort

	closed atomic.Bool // Close was called
	eof    bool        // a Read has returned io.EOF (owned by the reader)

	mu            sync.Mutex
	readDeadline  time.Time
	writeDeadline time.Time
}

// expired reports whether the deadline dl (zero: none) has passed.
func (c *conn) expired(dl time.Time) bool { return !dl.IsZero() && !dl.After(c.rt.Now()) }

// within runs op under the deadline dl (zero: none), which must not have
// passed.
func (c *conn) within(dl time.Time, op func() error) error {
	if dl.IsZero() {
		return op()
	}
	d := dl.Sub(c.rt.Now())
	if d <= 0 {
		return os.ErrDeadlineExceeded
	}
	err := simrt.Timeout(c.rt, d, op)
	if errors.Is(err, simrt.ErrTimeout) {
		return os.ErrDeadlineExceeded
	}
	return err
}

func (c *conn) deadlines() (r, w time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readDeadline, c.writeDeadline
}

// Read implements net.Conn.
func (c *conn) Read(p []byte) (int, error) {
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
func (c *conn) recv(p []byte, k int) (int, error) {
	b, err := c.stream.Recv(k)
	if err != nil {
		return 0, c.readErr(err)
	}
	return copy(p, b), nil
}

func (c *conn) readErr(err error) error {
	switch {
	case errors.Is(err, simrt.ErrRecvFailed):
		c.eof = true
		return io.EOF
	case errors.Is(err, simrt.ErrClosed):
		return c.opErr("read", net.ErrClosed)
	}
	return c.opErr("read", err)
}

// Write implements net.Conn.
func (c *conn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opErr("write", net.ErrClosed)
	}
	_, dl := c.deadlines()
	if c.expired(dl) {
		return 0, c.opErr("write", os.ErrDeadlineExceeded)
	}
	err := c.within(dl, func() error { return c.sink.Send(p) })
	if err != nil {
		if errors.Is(err, simrt.ErrClosed) {
			err = net.ErrClosed
		}
		return 0, c.opErr("write", err)
	}
	return len(p), nil
}

func (c *conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Close implements net.Conn: it closes both halves.
func (c *conn) Close() error {
	c.closed.Store(true)
	c.sink.Close()
	c.stream.Close()
	return nil
}

// LocalAddr implements net.Conn.
func (c *conn) LocalAddr() net.Addr { return net.TCPAddrFromAddrPort(c.local) }

// RemoteAddr implements net.Conn.
func (c *conn) RemoteAddr() net.Addr { return net.TCPAddrFromAddrPort(c.remote) }

// SetDeadline implements net.Conn, in the runtime's time.
func (c *conn) SetDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline, c.writeDeadline = t, t
	return nil
}

// SetReadDeadline implements net.Conn, in the runtime's time.
func (c *conn) SetReadDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDeadline = t
	return nil
}

// SetWriteDeadline implements net.Conn, in the runtime's time.
func (c *conn) SetWriteDeadline(t time.Time) error {
	if c.closed.Load() {
		return c.opErr("set", net.ErrClosed)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeDeadline = t
	return nil
}

// NewListener adapts a simrt.Listener to a net.Listener whose Accept returns
// conns (see New) over ctx.
func NewListener(ctx Runtime, l simrt.Listener) net.Listener {
	return &listener{rt: ctx, l: l}
}

type listener struct {
	rt Runtime
	l  simrt.Listener
}

// Accept implements net.Listener.
func (l *listener) Accept() (net.Conn, error) {
	peer, sink, stream, err := l.l.Accept()
	if err != nil {
		if errors.Is(err, simrt.ErrClosed) {
			err = net.ErrClosed
		}
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: err}
	}
	return New(l.rt, sink, stream, l.l.Addr(), peer), nil
}

// Close implements net.Listener.
func (l *listener) Close() error { return l.l.Close() }

// Addr implements net.Listener.
func (l *listener) Addr() net.Addr { return net.TCPAddrFromAddrPort(l.l.Addr()) }
