package simnet

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/telemetry/audit"
)

// Ephemeral ports: every dial attempt takes the next port from 32768 on,
// and 127.0.0.1 may not bind ports in [EphemeralStart, EphemeralEnd).
const (
	EphemeralStart = 32768
	EphemeralEnd   = 61000
)

// Assigned ports: a Bind of port 0 takes a free port from [AssignStart,
// AssignEnd), above the dialers' ephemeral range, so that 127.0.0.1 may
// take them too.
const (
	AssignStart = EphemeralEnd
	AssignEnd   = 1 << 16
)

// DefaultBufferSize is the back-pressure threshold of one direction of a
// connection when Config.BufferSize is zero.
const DefaultBufferSize = 64 << 10

// Loopback is the address of the default host: dials made through the
// Network itself (not a Host view) originate from it.
var Loopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// Runtime is what the network needs from the runtime it lives in: the
// current task (to park it), timers and the time.
type Runtime interface {
	simrt.Caller
	// Now returns the runtime's current time.
	Now() time.Time
}

// Recorder receives the network's control events (link changes,
// partitions, clogs, resets). The simulator's auditor satisfies it.
type Recorder interface {
	Event(label audit.Label, fields ...[]byte)
}

// Config sets the network's limits. The zero value is the default
// network: 64 KiB per direction, dials across a partition fail at once,
// held bytes wait for the heal forever.
type Config struct {
	// BufferSize is how many bytes one direction of a connection holds
	// (in flight plus arrived but not yet received) before Send parks.
	// Zero means DefaultBufferSize.
	BufferSize int
	// DialTimeout, when positive, makes a dial across a partition wait up
	// to this long for the partition to heal and then fail with
	// simrt.ErrTimeout. Zero means such a dial fails at once with
	// simrt.ErrConnectionFailed.
	DialTimeout time.Duration
	// HoldTimeout, when positive, resets a connection whose bytes a
	// partition has held this long. Zero means held bytes wait for the
	// heal forever.
	HoldTimeout time.Duration
	// MaxRecvSize is the largest n Recv accepts; a larger one fails at
	// once with simrt.ErrRecvTooLarge and poisons the stream. Zero means
	// simrt.DefaultMaxRecvSize (32 MiB), as in production.
	MaxRecvSize int
	// MaxRecvMemory bounds, per host, the bytes its streams hold beyond
	// BufferSize each: what Recvs larger than BufferSize have gathered
	// while their bytes arrive. A Recv that would pull more fails with
	// simrt.ErrRecvMemory (naming this field) and poisons its stream,
	// which gives its memory back; the bytes a Recv returned are the
	// caller's and count no more. Zero means simrt.DefaultMaxRecvMemory
	// (256 MiB), as in production, where tcp bounds it per process.
	MaxRecvMemory int
}

// Network is an in-memory network of hosts joined by directed links. It
// implements simrt.Network for the default host 127.0.0.1; Host gives the
// view from another address. Its methods may be called from any task of
// its runtime (and from timer callbacks), and only from those: in a runtime
// that runs one task at a time (the simulator), its lock stops locking once
// a task has waited on the network (see core.Lock).
type Network struct {
	cutErrs map[cutErrKey]*OpError // see cutError

	rt      Runtime
	rng     *rand.Rand
	rec     Recorder
	cfg     Config
	bufSize int

	mu        core.Lock
	carver    carver                       // Recv results, guarded by mu
	listeners map[netip.AddrPort]*listener // bound addresses, until Close or ResetHost
	port      int                          // next ephemeral port
	assigned  map[netip.Addr]int           // per address, the offset in the assigned range Bind of port 0 tries next; looked up, never iterated
	hosts     map[netip.Addr]*host
	recvHeld  map[netip.Addr]int // per receiving host, what its streams hold beyond BufferSize (recvmem.go); looked up, never iterated
	links     map[pair]*link
	linkList  []*link // links in creation order, for deterministic walks
	def       Link
	pipes     []*pipe        // pipes in creation order, for heals
	changed   core.WaitQueue // dials waiting for a partition or clog to end
	faults    faultCounts    // faults injected, not audited
	effects   []*Effect      // see Effects, not audited
	defBy     *Effect        // the SetDefaultLink that set def
	scratch   Effect         // counts that belong to no fault
}

var _ simrt.Network = (*Network)(nil)

// New returns an empty network that parks and times through rt and draws
// its faults from rng. rec, which may be nil, receives control events. New
// panics on a negative Config field.
func New(rt Runtime, rng *rand.Rand, rec Recorder, cfg Config) *Network {
	if cfg.BufferSize < 0 || cfg.DialTimeout < 0 || cfg.HoldTimeout < 0 || cfg.MaxRecvSize < 0 || cfg.MaxRecvMemory < 0 {
		panic("simnet.New: Config fields must not be negative")
	}
	if rng == nil {
		panic("simnet.New: nil rng")
	}
	n := &Network{
		rt:        rt,
		rng:       rng,
		rec:       rec,
		cfg:       cfg,
		bufSize:   cfg.BufferSize,
		listeners: make(map[netip.AddrPort]*listener),
		port:      EphemeralStart,
		assigned:  make(map[netip.Addr]int),
		hosts:     make(map[netip.Addr]*host),
		recvHeld:  make(map[netip.Addr]int),
		links:     make(map[pair]*link),
	}
	if n.bufSize == 0 {
		n.bufSize = DefaultBufferSize
	}
	if n.cfg.MaxRecvSize == 0 {
		n.cfg.MaxRecvSize = simrt.DefaultMaxRecvSize
	}
	if n.cfg.MaxRecvMemory == 0 {
		n.cfg.MaxRecvMemory = simrt.DefaultMaxRecvMemory
	}
	return n
}

// Host returns the network as seen from ip: its Dial originates from ip,
// so its connections cross the links from and to ip. Bind is the same as on
// the Network. It declares ip a host that originates connections, so
// faults may name it from now on (see Partition). ip must be valid; Host
// panics otherwise.
func (n *Network) Host(ip netip.Addr) simrt.Network {
	if !ip.IsValid() {
		panic("simnet.Network.Host: invalid address")
	}
	ip = ip.Unmap()
	n.mu.Lock()
	n.declare(ip)
	n.mu.Unlock()
	return hostView{n: n, ip: ip}
}

type hostView struct {
	n  *Network
	ip netip.Addr
}

// Bind implements simrt.Network.Bind. On a host other than 127.0.0.1 an
// unspecified address (0.0.0.0:p, [::]:p, as a production main binds)
// means the host's own address: it binds ip:p, so that every host may
// listen on ":p" and ResetHost frees it with the host. On 127.0.0.1 it is
// Network.Bind.
func (h hostView) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	if addr.Addr().IsUnspecified() && h.ip != Loopback {
		addr = netip.AddrPortFrom(h.ip, addr.Port())
	}
	return h.n.bind(h.ip, addr)
}

// Dial implements simrt.Network.Dial from the view's address.
func (h hostView) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	return h.n.dial(h.ip, addr)
}

// Bind implements simrt.Network.Bind, for the default host (127.0.0.1),
// which may bind any address. A bound address is taken until its
// listener is closed: a second Bind of it fails, and a Bind after Close
// succeeds, as in production (where Go's listeners set SO_REUSEADDR). An
// unspecified address (0.0.0.0:p or [::]:p) binds every address of the
// host on port p, as Go's dual-stack listeners do on Linux: while one is
// bound, a Bind of any address of the host on p fails, and it fails itself
// while any address of the host is bound on p (EADDRINUSE in production).
// Addresses bound by other hosts (Host, or a node's context) are not the
// default host's. A dial reaches the listener bound at its exact address,
// and a dial to a loopback address (127.0.0.1:p, [::1]:p) with none there
// reaches the default host's 0.0.0.0:p or [::]:p, as in production; a dial
// to another address does not reach a listener at 0.0.0.0 (which host's
// address it is, the simulator cannot tell).
//
// Port 0 asks for a port, as in production: Bind takes the first port of
// [AssignStart, AssignEnd) that the address can bind, counting from the
// one after the port it last assigned there (the first Bind of port 0 on
// an address gets 61000, the next 61001, skipping ports already bound, and
// around to AssignStart after 65535), and the listener's Addr reports it;
// the choice depends only on the Binds made on that address, never on a
// draw. When no port of the range is free, a Bind of port 0 fails.
// 127.0.0.1 may not bind an ephemeral port (one of [EphemeralStart,
// EphemeralEnd), which dials take). A failure is an *OpError that wraps
// ErrBindFailed and says why; an invalid address (the zero AddrPort) fails
// with ErrBindFailed, as in production.
func (n *Network) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	return n.bind(Loopback, addr)
}

// bind binds addr for host (see Bind).
func (n *Network) bind(host netip.Addr, addr netip.AddrPort) (simrt.Listener, error) {
	if !addr.IsValid() {
		return nil, fmt.Errorf("%w: invalid address %v", simrt.ErrBindFailed, addr)
	}
	addr = unmap(addr)
	n.mu.Lock()
	defer n.mu.Unlock()
	if addr.Port() == 0 {
		port, ok := n.assign(host, addr.Addr())
		if !ok {
			why := fmt.Sprintf("every port of %d-%d is bound on %v", AssignStart, AssignEnd-1, addr.Addr())
			return nil, opError("bind", addr, simrt.ErrBindFailed, why)
		}
		addr = netip.AddrPortFrom(addr.Addr(), port)
	} else if addr.Addr() == Loopback && addr.Port() >= EphemeralStart && addr.Port() < EphemeralEnd {
		why := fmt.Sprintf("%v keeps ports %d-%d for dials", Loopback, EphemeralStart, EphemeralEnd-1)
		return nil, opError("bind", addr, simrt.ErrBindFailed, why)
	} else if other, taken := n.inUse(host, addr); taken {
		why := "address in use"
		if other != addr {
			why = fmt.Sprintf("address in use (%v is bound)", other)
		}
		return nil, opError("bind", addr, simrt.ErrBindFailed, why)
	}
	l := &listener{n: n, addr: addr, host: host}
	n.listeners[addr] = l
	n.mention(addr.Addr())
	return l, nil
}

// inUse reports whether host binding addr collides with a bound address,
// and which: addr itself, or on the same port an unspecified address of
// host (when addr is specific) or any address of host (when addr is
// unspecified), the smallest such address. Called with mu held.
func (n *Network) inUse(host netip.Addr, addr netip.AddrPort) (netip.AddrPort, bool) {
	if _, taken := n.listeners[addr]; taken {
		return addr, true
	}
	if !addr.Addr().IsUnspecified() {
		for _, any := range [2]netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()} {
			a := netip.AddrPortFrom(any, addr.Port())
			if l := n.listeners[a]; l != nil && l.host == host {
				return a, true
			}
		}
		return netip.AddrPort{}, false
	}
	var other netip.AddrPort
	found := false
	for a, l := range n.listeners { // the smallest collision: no order dependence
		if a.Port() == addr.Port() && l.host == host && (!found || a.Compare(other) < 0) {
			other, found = a, true
		}
	}
	return other, found
}

// assign returns the port a Bind of port 0 on ip by host takes: the first
// one of the assigned range that ip can bind (see inUse), from the one
// after the port it last assigned on ip, or false if there is none. Called
// with mu held.
func (n *Network) assign(host, ip netip.Addr) (uint16, bool) {
	const size = AssignEnd - AssignStart
	next := n.assigned[ip]
	for i := range size {
		off := (next + i) % size
		port := uint16(AssignStart + off)
		if _, taken := n.inUse(host, netip.AddrPortFrom(ip, port)); !taken {
			n.assigned[ip] = (off + 1) % size
			return port, true
		}
	}
	return 0, false
}

// OpError is the error of a Bind or Dial that failed on the network: what
// was called, on which address, and why. It wraps Err, the error of the
// simrt.Network contract (simrt.ErrBindFailed or
// simrt.ErrConnectionFailed), so errors.Is matches that.
type OpError struct {
	// Op is "bind" or "dial".
	Op string
	// Addr is the address bound or dialed, as the call named it (after
	// Host's substitution of an unspecified address).
	Addr netip.AddrPort
	// Reason says why the call failed, e.g. "address in use".
	Reason string
	// Err is the sentinel error the call fails with.
	Err error

	msg string // the message, built with the error (see opError)
}

// opError returns the error of a failed op on addr, its message built at
// once: an audit of the network records the message, and it then costs
// no allocation of its own, however often the audit asks for it.
func opError(op string, addr netip.AddrPort, err error, reason string) *OpError {
	e := &OpError{Op: op, Addr: addr, Reason: reason, Err: err}
	e.msg = e.format()
	return e
}

func (e *OpError) format() string {
	return e.Op + " " + e.Addr.String() + ": " + e.Reason + ": " + e.Err.Error()
}

// Error returns "op addr: reason: err", e.g. "bind 127.0.0.1:7000:
// address in use: bind failed", built from the fields as they were when
// the network made the error.
func (e *OpError) Error() string {
	if e.msg == "" { // not made by the network
		return e.format()
	}
	return e.msg
}

// Unwrap returns Err.
func (e *OpError) Unwrap() error { return e.Err }

// Dial implements simrt.Network.Dial from 127.0.0.1.
func (n *Network) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	return n.dial(Loopback, addr)
}

// dial connects src to dst. Every attempt takes an ephemeral port, even a
// failed one. Across a partition it fails (or waits, with DialTimeout);
// across a clog it waits for the release; with latency it takes one round
// trip. The connection is queued on the listener at once: no Accept is
// needed for the dialer to start sending. A failure is an *OpError that
// wraps ErrConnectionFailed (or ErrTimeout, unwrapped, with DialTimeout).
func (n *Network) dial(src netip.Addr, dst netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	dst = unmap(dst)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unwindInterrupted()
	if n.port > 0xffff {
		panic("ephemeral port range exhausted")
	}
	local := netip.AddrPortFrom(src, uint16(n.port))
	n.port++
	out, back := n.links2(src, dst.Addr())
	if !out.from.origin || !out.to.known {
		n.declare(src)
		n.mention(dst.Addr())
	}
	if err := n.waitPath(out, back); err != nil {
		if errors.Is(err, simrt.ErrConnectionFailed) {
			err = n.cutError(dst, out, back)
		}
		return nil, nil, err
	}
	if rtt := out.cfg.Latency + back.cfg.Latency; rtt > 0 {
		n.sleep(rtt)
	}
	l := n.listeners[dst]
	if l == nil {
		l = n.loopbackWildcard(dst)
	}
	if l == nil {
		return nil, nil, opError("dial", dst, simrt.ErrConnectionFailed, "connection refused: nothing listens there")
	}
	c := &conn{
		up:   pipe{net: n, link: out, from: local, to: dst, sinkOpen: true, streamOpen: true},
		down: pipe{net: n, link: back, from: dst, to: local, sinkOpen: true, streamOpen: true},
	}
	up, down := &c.up, &c.down
	up.peer, down.peer = down, up
	c.dialSink.p, c.dialStream.p, c.acceptSink.p, c.acceptStream.p = up, down, down, up
	n.pipes = append(n.pipes, up, down)
	l.queue = append(l.queue, accepted{peer: local, sink: &c.acceptSink, stream: &c.acceptStream})
	l.q.NotifyOne()
	return &c.dialSink, &c.dialStream, nil
}

// conn is one connection: its two pipes and the four halves that use
// them, allocated together (they live as long as one another).
type conn struct {
	up, down                 pipe // dialer to acceptor, and back
	dialSink, acceptSink     sink
	dialStream, acceptStream stream
}

// waitPath parks while a clog blocks the path, and fails or waits (per
// DialTimeout) while a partition cuts it. Called with mu held.
func (n *Network) waitPath(out, back *link) error {
	open := func() bool { return !out.blocked() && !back.blocked() }
	if open() {
		return nil
	}
	if (out.severed() || back.severed()) && n.cfg.DialTimeout <= 0 {
		n.pathBlocker(out, back).Refused++
		return simrt.ErrConnectionFailed
	}
	n.pathBlocker(out, back).DialsHeld++
	wait := func() error {
		for !open() {
			if (out.severed() || back.severed()) && n.cfg.DialTimeout <= 0 {
				return simrt.ErrConnectionFailed
			}
			n.waitOn(&n.changed, dialWait)
		}
		return nil
	}
	if n.cfg.DialTimeout <= 0 {
		return wait()
	}
	return simrt.Timeout(n.rt, n.cfg.DialTimeout, wait)
}

// cutErrKey names a dial's failure across a cut path: the address dialed,
// from where, and the fault that cuts it.
type cutErrKey struct {
	dst                netip.AddrPort
	src                netip.Addr
	fault              fault.Name
	faultFrom, faultTo netip.Addr
}

// cutError returns the error of a dial to dst that failed across the cut
// path out/back. A node redialling a peer across a partition fails the
// same way many times, so the error is made once per address, source and
// fault and then returned again (its message takes several allocations).
// Called with mu held, only for a path that is severed.
func (n *Network) cutError(dst netip.AddrPort, out, back *link) *OpError {
	e := n.pathBlocker(out, back)
	k := cutErrKey{dst: dst, src: out.from.ip, fault: e.Fault, faultFrom: e.From, faultTo: e.To}
	if err, ok := n.cutErrs[k]; ok {
		return err
	}
	if n.cutErrs == nil {
		n.cutErrs = make(map[cutErrKey]*OpError)
	}
	err := opError("dial", dst, simrt.ErrConnectionFailed, n.cutReason(out, back))
	n.cutErrs[k] = err
	return err
}

// cutReason says which fault cuts the path of a dial that failed across
// it. Called with mu held, only for a path that is severed.
func (n *Network) cutReason(out, back *link) string {
	why := fmt.Sprintf("the path from %v is cut", out.from.ip)
	e := n.pathBlocker(out, back)
	switch {
	case e.Fault == "":
	case e.To.IsValid():
		why += fmt.Sprintf(" by %s(%v, %v)", e.Fault, e.From, e.To)
	default:
		why += fmt.Sprintf(" by %s(%v)", e.Fault, e.From)
	}
	return why
}

// pathBlocker is the effect that blocks a dial's path: a cut or
// isolation of either direction before a clog. Called with mu held.
func (n *Network) pathBlocker(out, back *link) *Effect {
	switch {
	case out.severed():
		return n.severer(out)
	case back.severed():
		return n.severer(back)
	case out.blocked():
		return n.blocker(out)
	}
	return n.blocker(back)
}

// waitOn parks the calling task on q with mu released (see core.Wait),
// and holds mu again when it returns or unwinds. on says what it waits
// for, for reports.
func (n *Network) waitOn(q *core.WaitQueue, on core.Blocker) {
	n.waitPassing(q, on, nil)
}

// waitPassing is waitOn for a queue whose waiters are woken one at a
// time: if the wait unwinds after a wake-up the task will not use, forward
// passes it on to the next waiter (see core.Wait).
func (n *Network) waitPassing(q *core.WaitQueue, on core.Blocker, forward func()) {
	ok := false
	defer func() {
		if !ok { // core.Wait unwinds with mu released; the callers' deferred Unlock wants it held
			n.mu.Lock()
		}
	}()
	core.Wait(&n.mu, n.rt.CurrentTask().Waiter(), q, on, forward)
	ok = true
}

// sleep parks the calling task for d with mu released, and holds mu again
// when it returns or unwinds.
func (n *Network) sleep(d time.Duration) {
	n.mu.Unlock()
	defer n.mu.Lock()
	simrt.Select(n.rt, simrt.After(n.rt, d, nil))
}

// host returns the state of ip, creating it. Called with mu held.
func (n *Network) host(ip netip.Addr) *host {
	h := n.hosts[ip]
	if h == nil {
		h = &host{ip: ip}
		n.hosts[ip] = h
	}
	return h
}

// link returns the state of the link from a to b, creating it with the
// default configuration. Called with mu held.
func (n *Network) link(a, b netip.Addr) *link {
	k := pair{a, b}
	l := n.links[k]
	if l == nil {
		l = &link{from: n.host(a), to: n.host(b), cfg: n.def, cfgBy: n.defBy}
		n.links[k] = l
		n.linkList = append(n.linkList, l)
	}
	return l
}

// links2 returns the links from a to b and from b to a, as link does, with
// one map lookup once the pair has been looked up before: a dial needs
// both, and dials repeat (a redial across a partition, on every send).
// Called with mu held.
func (n *Network) links2(a, b netip.Addr) (out, back *link) {
	out = n.link(a, b)
	if out.back == nil {
		out.back = n.link(b, a)
		out.back.back = out
	}
	return out, out.back
}

// resetConn breaks the connection p belongs to: every byte is dropped and
// every parked operation on either end fails. Called with mu held.
func (n *Network) resetConn(p *pipe, why string) {
	n.countReset(p, why)
	for _, q := range [2]*pipe{p, p.peer} {
		q.reset = true
		q.discard()
		q.recvq.NotifyAll()
		q.sendq.NotifyAll()
	}
	n.event(audit.NetReset, p.from.String(), p.to.String(), why)
}

// event records a control event, if there is a recorder.
func (n *Network) event(label audit.Label, fields ...string) {
	n.faults.countControl(label, fields)
	if n.rec == nil {
		return
	}
	bs := make([][]byte, len(fields))
	for i, f := range fields {
		bs[i] = []byte(f)
	}
	n.rec.Event(label, bs...)
}

func unmap(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// accepted is a connection waiting in a listener's queue.
type accepted struct {
	peer   netip.AddrPort
	sink   *sink
	stream *stream
}

// listener is a bound address and its queue of connections.
type listener struct {
	n      *Network
	addr   netip.AddrPort
	host   netip.Addr // the host that bound it (see Network.Bind)
	queue  []accepted
	closed bool
	q      core.WaitQueue
}

var _ simrt.Listener = (*listener)(nil)

// Accept implements simrt.Listener.Accept. A dial wakes one waiting
// Accept; if that task is aborted (or its Timeout expires) before it takes
// the connection, the wake-up passes to the next waiting Accept.
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	n := l.n
	n.mu.Lock()
	defer n.mu.Unlock()
	n.unwindInterrupted()
	for {
		if l.closed {
			return netip.AddrPort{}, nil, nil, simrt.ErrClosed
		}
		if len(l.queue) > 0 {
			c := l.queue[0]
			l.queue[0] = accepted{}
			l.queue = l.queue[1:]
			return c.peer, c.sink, c.stream, nil
		}
		n.waitPassing(&l.q, (*acceptWait)(l), l.passOn)
	}
}

// loopbackWildcard returns the listener a dial to dst reaches when nothing
// is bound at dst itself: for a loopback address (127.0.0.0/8, ::1), the
// default host's listener at 0.0.0.0 or [::] on dst's port, which takes
// every address of the host, as in production; nil otherwise. Called with
// mu held.
func (n *Network) loopbackWildcard(dst netip.AddrPort) *listener {
	if !dst.Addr().IsLoopback() {
		return nil
	}
	for _, any := range [2]netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()} {
		if l := n.listeners[netip.AddrPortFrom(any, dst.Port())]; l != nil && l.host == Loopback {
			return l
		}
	}
	return nil
}

// unwindInterrupted unwinds the calling task at once if it has been
// interrupted (its Timeout ran out, or it was aborted), before an Accept or
// a Dial changes anything, whether or not the call would park: in
// production both always ask the kernel, and a task interrupted before
// the call unwinds there (nettest ExpiredTimeoutCutsAcceptAndDial). A
// stale interrupt flag is cleared. Called with mu held: the caller's
// deferred Unlock runs as the task unwinds.
func (n *Network) unwindInterrupted() {
	if t := n.rt.CurrentTask(); t.InterruptPending() {
		t.CheckInterrupt()
	}
}

// passOn wakes the next task waiting in Accept, for one that was woken
// and will not take the connection. Called with mu held.
func (l *listener) passOn() { l.q.NotifyOne() }

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.addr }

// Close implements simrt.Listener.Close. Connections still queued are
// closed, so their dialers see their sends and receives fail. The address
// is freed, as in production: a later dial to it fails with
// ErrConnectionFailed until it is bound again, and a Bind of it succeeds.
func (l *listener) Close() error {
	n := l.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closeLocked()
	if n.listeners[l.addr] == l {
		delete(n.listeners, l.addr)
	}
	return nil
}

// closeLocked closes l. Called with mu held.
func (l *listener) closeLocked() {
	l.closed = true
	queue := l.queue
	l.queue = nil
	l.q.NotifyAll()
	for _, c := range queue {
		c.sink.closeLocked()
		c.stream.closeLocked()
	}
}
