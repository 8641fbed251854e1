package realtime

import (
	"context"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/tcp"
)

// The production network is a stack: network/metered (the counters) over
// the device, which is network/tcp under the runtime's interruption layer
// (this file and interrupt.go). The interruption layer must sit right on
// tcp: it cuts a blocked operation short through tcp's Interrupt methods
// (interrupter), which no other layer carries. Each connection and
// listener belongs to the task whose context opened it (its owner), so a
// device is made per Bind and Dial, for the calling task.

// netStack is the runtime's TCP network and the counters every task's view
// of it shares.
type netStack struct {
	tcp     *tcp.Network
	metrics *metered.Metrics
}

// initNetwork makes the production network. The tcp network knows nothing
// of tasks: halves carry no context and are handed between tasks, so each
// operation blocks its own goroutine, bounded by the configured timeouts;
// an interruption of the task blocked in it (a Timeout, an abort, the
// shutdown) shuts the half down in the kernel (interrupt.go).
func (rt *runtime) initNetwork() {
	rt.network = netStack{tcp: tcp.New(rt.cfg.Network), metrics: metered.NewMetrics(rt.sh.Registry.Registerer())}
}

// netFor returns the network owner's context opens connections on: the
// counters over owner's device.
func (rt *runtime) netFor(owner *task) *metered.Network {
	return shell.NetworkStack(&device{rt: rt, owner: owner}, nil, rt.network.metrics, nil).(*metered.Network)
}

// Bind implements simrt.Network.Bind over TCP. The listener is closed at
// shutdown. An abort of the task owning this context, like an abort or a
// Timeout of a task blocked in Accept, leaves it open, as in the
// simulator (see listener.Accept).
func (c *Context) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	c.rt().check()
	c.rt().netUsed.Store(true)
	return c.rt().netFor(c.task).Bind(addr)
}

// Dial implements simrt.Network.Dial over TCP. The connection is closed at
// shutdown. An abort of the task owning this context leaves it open, as in
// the simulator: the abort cuts only the call the task is blocked in (see
// conn).
//
// The connect blocks the calling goroutine, with a context.Context that
// the shutdown cancels: Dial then returns simrt.ErrClosed at once, and no
// goroutine of the connect outlives it. Called on a task's goroutine (the
// context's task's or another's, see interrupt.go), Dial is cut short by
// that task's abort or simrt.Timeout, and the task unwinds as in the
// simulator; an abort of the context's task does not touch the Dial of
// another task through it (nettest DialThroughAnotherContextIsTheCallers).
// Called from a goroutine that is no task's, Dial is cut short, with
// ErrClosed, by an abort of the context's task.
func (c *Context) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	c.rt().check()
	c.rt().netUsed.Store(true)
	return c.rt().netFor(c.task).Dial(addr)
}

// device is tcp under the interruption layer, for the connections and
// listeners of one owner task.
type device struct {
	rt    *runtime
	owner *task
}

var _ simrt.Network = (*device)(nil)

// Bind binds a tcp listener and tracks it: the runtime closes it at
// shutdown, and an abort of the owner cuts short the Accepts called from
// goroutines that are no task's (see listener).
func (d *device) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	l, err := d.rt.network.tcp.Bind(addr)
	if err != nil {
		return nil, err
	}
	tl := &listener{rt: d.rt, owner: d.owner, inner: l}
	tl.tg.init(l)
	tl.calls = l.(acceptCaller)
	d.rt.io.add(tl)
	d.owner.closers().add((*orphanAccepts)(tl))
	return tl, nil
}

// Dial connects with a context that an interruption of the task blocked
// in the connect cancels: the caller's task, when the caller is a task's
// goroutine, which need not be the owner (a context handed to another
// task). The owner's abort cancels it only when the caller is the owner,
// or a goroutine that is no task's (as it cuts a connection's orphan
// calls, see conn): in the simulator, an abort cuts only the call the
// aborted task is blocked in (see Context.Dial).
func (d *device) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	t := d.owner
	dctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cc := &cancelCloser{cancel: cancel}
	tg := ioTarget{inner: cc}
	o := d.rt.blockedTask(t, &tg)
	if o == nil || o == t {
		t.closers().add(cc) // an aborted task's set cancels it at once
		defer t.closers().remove(cc)
	}
	rec := o != nil && o.beginIO(&tg)
	sink, stream, err := d.rt.network.tcp.DialContext(dctx, addr)
	if rec && o.endIO(&tg) {
		if err == nil {
			sink.Close()
			stream.Close()
		}
		o.ct.CheckInterrupt()
	}
	if err != nil {
		return nil, nil, err
	}
	tc := newConn(d.rt, t, sink, stream)
	return &tc.sink, &tc.stream, nil
}

// Resolve implements simrt.Resolver with the system resolver. The lookup
// is bounded by Config.ConnectTimeout and cancelled if the task owning
// this context is aborted.
func (c *Context) Resolve(host string) ([]netip.Addr, error) {
	c.rt().check()
	ctx, cancel := context.WithTimeout(context.Background(), c.rt().cfg.Network.ConnectTimeout)
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

// cancelCloser cancels a context.Context when closed or interrupted.
type cancelCloser struct{ cancel context.CancelFunc }

func (c *cancelCloser) Close() error { c.cancel(); return nil }

// Interrupt cancels the context (interrupter, for an interrupted Dial).
func (c *cancelCloser) Interrupt() { c.cancel() }

// conn tracks both halves of a connection; closing it closes both, which
// unblocks a pending Send or Recv. It stops being tracked once its user has
// closed both halves.
//
// The runtime closes it at shutdown. An abort of its owner (the task whose
// context dialled it, or bound the listener that accepted it) leaves it
// open, as in the simulator, whose network knows no owners: the connection
// goes on working for whichever task holds it, and a task blocked in it is
// cut by its own interruption (interrupt.go). What the owner's abort cuts
// is the calls of goroutines that are no task's (orphans, which the
// simulator cannot have), now and from then on, with ErrClosed, as a
// listener's orphan Accepts (see listener): the goroutine of an owner that
// has never blocked through its context is not known to be the owner's,
// so this is also what cuts such an owner's own blocked call.
type conn struct {
	rt      *runtime
	owner   *task
	sink    sink
	stream  stream
	open    atomic.Int32
	orphans struct {
		sync.Mutex
		ownerAborted bool
		calls        [2]int // orphan calls in progress: on the sink, on the stream
	}
}

// The halves, as conn.orphans.calls indexes them.
const (
	onSink = iota
	onStream
)

func newConn(rt *runtime, owner *task, s simrt.Sink, st simrt.Stream) *conn {
	c := makeConn(rt, owner, s, st)
	rt.io.add(c)
	owner.closers().add((*orphanCalls)(c))
	return c
}

// newAccepted is newConn for a connection a listener of owner accepted:
// if owner has been aborted (or has ended) meanwhile, the connection is
// not its (its orphan calls would otherwise be cut at once) and the
// runtime alone tracks it, as the simulator keeps an aborted owner's
// listener working.
func newAccepted(rt *runtime, owner *task, s simrt.Sink, st simrt.Stream) *conn {
	c := makeConn(rt, owner, s, st)
	rt.io.add(c)
	owner.closers().addLive((*orphanCalls)(c))
	return c
}

// makeConn builds the tracked pair over s and st, both halves open.
func makeConn(rt *runtime, owner *task, s simrt.Sink, st simrt.Stream) *conn {
	c := &conn{rt: rt, owner: owner}
	c.sink = sink{c: c, inner: s}
	c.sink.tg.init(s)
	c.sink.tg.half = true
	c.stream = stream{c: c, inner: st}
	c.stream.tg.init(st)
	c.stream.tg.half = true
	c.open.Store(2)
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
		c.owner.closers().remove((*orphanCalls)(c))
		c.rt.io.remove(c)
	}
}

// beginOrphan records a call, on the half h, of a goroutine that is no
// task's; it reports false, and records nothing, if the owner has been
// aborted: the call must then fail with ErrClosed.
func (c *conn) beginOrphan(h int) bool {
	o := &c.orphans
	o.Lock()
	defer o.Unlock()
	if o.ownerAborted {
		return false
	}
	o.calls[h]++
	return true
}

// endOrphan clears what beginOrphan recorded.
func (c *conn) endOrphan(h int) {
	o := &c.orphans
	o.Lock()
	o.calls[h]--
	o.Unlock()
}

// orphanCalls is a connection as its owner's closers see it: an abort of
// the owner cuts short the calls of goroutines that are no task's (see
// conn), and leaves the connection open.
type orphanCalls conn

// Interrupt cuts the orphan calls short, now and from then on: a half
// with such a call in progress is shut down in the kernel and poisoned.
func (a *orphanCalls) Interrupt() {
	o := &a.orphans
	o.Lock()
	defer o.Unlock()
	o.ownerAborted = true
	for h, tg := range [2]*ioTarget{&a.sink.tg, &a.stream.tg} {
		if o.calls[h] > 0 && tg.cut.CompareAndSwap(false, true) {
			tg.inner.Interrupt()
		}
	}
}

// Close is Interrupt (the owner's closers close what they track at
// shutdown; the runtime closes the connection itself).
func (a *orphanCalls) Close() error {
	a.Interrupt()
	return nil
}

type sink struct {
	c      *conn
	inner  simrt.Sink
	closed atomic.Bool
	tg     ioTarget // an interrupted Send shuts the write half down
}

var _ simrt.Sink = (*sink)(nil)

// Send implements simrt.Sink.Send. If the task blocked in it (whichever
// task opened the connection) is interrupted (a Timeout expires, an abort)
// while Send blocks, the write half is shut down and poisoned, and Send
// unwinds that task (see interrupt.go).
func (s *sink) Send(bufs ...[]byte) error {
	if s.tg.cut.Load() {
		return simrt.ErrClosed
	}
	o := s.c.rt.blockedTask(s.c.owner, &s.tg)
	if o == nil || !o.beginIO(&s.tg) {
		if !s.c.beginOrphan(onSink) {
			return simrt.ErrClosed
		}
		defer s.c.endOrphan(onSink)
		return s.inner.Send(bufs...)
	}
	err := s.inner.Send(bufs...)
	if o.endIO(&s.tg) {
		o.ct.CheckInterrupt()
	}
	return err
}

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
	tg     ioTarget // an interrupted Recv shuts the read half down
}

var _ simrt.Stream = (*stream)(nil)

// Recv implements simrt.Stream.Recv. If the task blocked in it (whichever
// task opened the connection) is interrupted (a Timeout expires, an abort)
// while Recv blocks, the read half is shut down and poisoned, and Recv
// unwinds that task (see interrupt.go). A Recv of bytes already buffered cannot block and runs
// directly.
func (s *stream) Recv(n int) ([]byte, error) {
	if s.tg.cut.Load() {
		return nil, simrt.ErrClosed
	}
	if n <= 0 || len(s.inner.Peek(n)) >= n {
		return s.inner.Recv(n)
	}
	o := s.c.rt.blockedTask(s.c.owner, &s.tg)
	if o == nil || !o.beginIO(&s.tg) {
		if !s.c.beginOrphan(onStream) {
			return nil, simrt.ErrClosed
		}
		defer s.c.endOrphan(onStream)
		return s.inner.Recv(n)
	}
	b, err := s.inner.Recv(n)
	if o.endIO(&s.tg) {
		o.ct.CheckInterrupt()
	}
	return b, err
}

// Peek implements simrt.Stream.Peek. A stream poisoned by an interruption
// shows nothing.
func (s *stream) Peek(max int) []byte {
	if s.tg.cut.Load() {
		return nil
	}
	return s.inner.Peek(max)
}

// Close implements simrt.Stream.Close.
func (s *stream) Close() error {
	err := s.inner.Close()
	if s.closed.CompareAndSwap(false, true) {
		s.c.halfClosed()
	}
	return err
}

// Interrupt shuts both halves down in the kernel, which unblocks a pending
// Send or Recv without racing with it (the shutdown calls it; Close waits
// until no task is running).
func (c *conn) Interrupt() {
	c.sink.tg.inner.Interrupt()
	c.stream.tg.inner.Interrupt()
}
