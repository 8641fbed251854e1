package realtime

import (
	"context"
	"net"
	"net/netip"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/tcp"
)

// initNetwork wires the production network: tracking (below) over
// metered over tcp. The tcp network gets no runtime: a realtime task
// cannot be found from the goroutine that calls Send or Recv (halves carry
// no context and are handed between tasks), so each operation blocks its
// own goroutine, bounded by the configured timeouts, and an abort or
// shutdown unblocks it by closing the connection.
func (rt *runtime) initNetwork() {
	rt.network = metered.New(tcp.New(nil, rt.cfg.Network), rt.registry.Registerer())
}

// Bind implements simrt.Network.Bind over TCP. The listener is closed if
// the task owning this context is aborted, and at shutdown.
func (c *Context) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	c.rt.check()
	l, err := c.rt.network.Bind(addr)
	if err != nil {
		return nil, err
	}
	tl := &listener{rt: c.rt, owner: c.task, inner: l}
	c.rt.track(c.task, tl)
	return tl, nil
}

// Dial implements simrt.Network.Dial over TCP. The connection is closed if
// the task owning this context is aborted, and at shutdown.
func (c *Context) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	c.rt.check()
	sink, stream, err := c.rt.network.Dial(addr)
	if err != nil {
		return nil, nil, err
	}
	tc := newConn(c.rt, c.task, sink, stream)
	return &tc.sink, &tc.stream, nil
}

// Resolve implements simrt.Resolver with the system resolver. The lookup
// is bounded by Config.ConnectTimeout and cancelled if the task owning
// this context is aborted.
func (c *Context) Resolve(host string) ([]netip.Addr, error) {
	c.rt.check()
	ctx, cancel := context.WithTimeout(context.Background(), c.rt.cfg.Network.ConnectTimeout)
	cc := &cancelCloser{cancel: cancel}
	c.task.closers().add(cc)
	defer func() {
		c.task.closers().remove(cc)
		cancel()
	}()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, &simrt.ResolveError{Host: host, Err: err}
	}
	if len(addrs) == 0 {
		return nil, &simrt.ResolveError{Host: host}
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// cancelCloser cancels a context.Context when closed.
type cancelCloser struct{ cancel context.CancelFunc }

func (c *cancelCloser) Close() error { c.cancel(); return nil }

// track registers r as open I/O of owner and of the runtime.
func (rt *runtime) track(owner *task, r interface{ Close() error }) {
	rt.io.add(r)
	owner.closers().add(r)
}

func (rt *runtime) untrack(owner *task, r interface{ Close() error }) {
	owner.closers().remove(r)
	rt.io.remove(r)
}

// listener tracks a listener so that aborting its owner, or shutting down,
// unblocks a pending Accept. Accepted connections belong to its owner.
type listener struct {
	rt     *runtime
	owner  *task
	inner  simrt.Listener
	closed atomic.Bool
}

var _ simrt.Listener = (*listener)(nil)

// Accept implements simrt.Listener.Accept.
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	peer, sink, stream, err := l.inner.Accept()
	if err != nil {
		return peer, nil, nil, err
	}
	tc := newConn(l.rt, l.owner, sink, stream)
	return peer, &tc.sink, &tc.stream, nil
}

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *listener) Close() error {
	if l.closed.CompareAndSwap(false, true) {
		l.rt.untrack(l.owner, l)
	}
	return l.inner.Close()
}

// conn tracks both halves of a connection; closing it closes both, which
// unblocks a pending Send or Recv. It stops being tracked once its user has
// closed both halves.
type conn struct {
	rt     *runtime
	owner  *task
	sink   sink
	stream stream
	open   atomic.Int32
}

func newConn(rt *runtime, owner *task, s simrt.Sink, st simrt.Stream) *conn {
	c := &conn{rt: rt, owner: owner}
	c.sink = sink{c: c, inner: s}
	c.stream = stream{c: c, inner: st}
	c.open.Store(2)
	rt.track(owner, c)
	return c
}

// Close closes both halves (the runtime's interruption).
func (c *conn) Close() error {
	c.sink.Close()
	c.stream.Close()
	return nil
}

func (c *conn) halfClosed() {
	if c.open.Add(-1) == 0 {
		c.rt.untrack(c.owner, c)
	}
}

type sink struct {
	c      *conn
	inner  simrt.Sink
	closed atomic.Bool
}

var _ simrt.Sink = (*sink)(nil)

// Send implements simrt.Sink.Send.
func (s *sink) Send(bufs ...[]byte) error { return s.inner.Send(bufs...) }

// Close implements simrt.Sink.Close.
func (s *sink) Close() error {
	err := s.inner.Close()
	if s.closed.CompareAndSwap(false, true) {
		s.c.halfClosed()
	}
	return err
}

type stream struct {
	c      *conn
	inner  simrt.Stream
	closed atomic.Bool
}

var _ simrt.Stream = (*stream)(nil)

// Recv implements simrt.Stream.Recv.
func (s *stream) Recv(n int) ([]byte, error) { return s.inner.Recv(n) }

// Peek implements simrt.Stream.Peek.
func (s *stream) Peek(max int) []byte { return s.inner.Peek(max) }

// Close implements simrt.Stream.Close.
func (s *stream) Close() error {
	err := s.inner.Close()
	if s.closed.CompareAndSwap(false, true) {
		s.c.halfClosed()
	}
	return err
}
