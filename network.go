package simrt

import "net/netip"

// DefaultMaxRecvSize is the largest n a Stream's Recv accepts when the
// network's configuration leaves its maximum at zero (MaxRecvSize in the
// tcp and simnet configurations, and so in both runtimes' Config.Network):
// 32 MiB. A length read from a peer can then never make a process reserve
// more than that for one Recv, and the simulator fails the same calls
// production fails.
const DefaultMaxRecvSize = 32 << 20

// DefaultMaxRecvMemory bounds, when the network's configuration leaves its
// MaxRecvMemory at zero (in the tcp and simnet configurations, and so in
// both runtimes' Config.Network), the receive memory that the streams of
// one process hold at once for Recvs larger than their own buffer: 256 MiB,
// eight Recvs of DefaultMaxRecvSize. A Recv that would take more fails with
// ErrRecvMemory, so that peers sending large frames on many connections at
// once cannot make a process reserve more than that.
const DefaultMaxRecvMemory = 256 << 20

// Network binds listeners and dials connections. A connection is two
// independent halves: a Sink to send and a Stream to receive. Closing or
// poisoning one half leaves the other usable.
//
// Go has no destructors: a task that ends holding a half does not close it,
// and neither does an abort of the task that dialled the connection or
// bound the listener that accepted it (the connection keeps working for
// the task it was handed to). Close both halves of every connection,
// typically with defer, or the peer waits forever.
//
// Every method is safe to call from any task of the runtime that owns the
// network. A half parks through that runtime, so an abort or a Timeout that
// unwinds the calling task abandons the operation and poisons the half,
// also when the task was interrupted before the operation parked.
type Network interface {
	// Bind listens on addr, or returns an error that wraps ErrBindFailed.
	// Port 0 asks for a free port, and the listener's Addr reports the
	// port taken: in production the kernel picks one from its ephemeral
	// range; the simulator takes the next free one of 61000-65535 on that
	// address, the same in every run of a seed (see simnet.Network.Bind),
	// and fails when all of them are bound there. An address is taken
	// until its listener is closed; an unspecified address (0.0.0.0:p,
	// [::]:p) takes port p on every address of the host, so that a Bind of
	// 127.0.0.1:p beside it fails, and so does a Bind of 0.0.0.0:p while
	// 127.0.0.1:p is bound (on every runtime; nettest
	// BindUnspecifiedTakesThePort, BindAfterCloseSucceeds).
	Bind(addr netip.AddrPort) (Listener, error)
	// Dial connects to addr and returns the two halves of the connection,
	// or ErrConnectionFailed (nobody listens there, or the path is cut), or
	// ErrTimeout (the connection attempt ran out of time).
	Dial(addr netip.AddrPort) (Sink, Stream, error)
}

// Listener accepts connections.
type Listener interface {
	// Accept parks until a peer connects and returns the peer's address and
	// the two halves of the new connection. After Close it returns
	// ErrClosed. An Accept abandoned by an abort or a Timeout of its task
	// leaves the listener open: the next Accept gets the next connection.
	Accept() (peer netip.AddrPort, sink Sink, stream Stream, err error)
	// Addr returns the address the listener is bound to.
	Addr() netip.AddrPort
	// Close stops accepting and frees the address, which a new Bind may
	// take; a parked Accept returns ErrClosed. Connections already
	// accepted stay open. Closing twice does nothing.
	Close() error
}

// Sink is the sending half of a connection.
type Sink interface {
	// Send sends all bytes of bufs, in order, as one logical byte sequence;
	// it may park while the peer is slow to receive. On error part of the
	// bytes may have been delivered. After any error, or after a Send that
	// was abandoned mid-way (its task aborted or its Timeout expired), the
	// sink is poisoned and every later Send returns ErrClosed. A Send
	// called by a task already interrupted unwinds it at once, sending
	// nothing, and poisons the sink too. A Send that unwinds its task
	// (abandoned mid-way, or called interrupted) also ends the peer's
	// stream after the bytes that left, as Close does: the peer's Recv
	// fails with ErrRecvFailed once it has taken them. What left is a
	// prefix of the Send, so the peer of a Send larger than the buffers
	// between the two ends sees it truncated. Over TCP the write half is
	// shut down, and what left is what the kernels had taken (the sender's
	// send buffer and the peer's receive buffer: about 3.9 MB over Linux
	// loopback with default sysctls, the peer reading nothing). In the
	// simulator it is what the peer's stream had pulled plus at most the
	// network's buffer beyond it (simnet's Config.BufferSize, 64 KiB by
	// default); the rest of the Send is dropped. Send fails with
	// ErrSendFailed when the peer has closed both halves (or the
	// connection was reset) before it took the bytes; once they are taken,
	// Send succeeds even if the peer closes right after. A peer that
	// closed only its stream still takes bytes (see Stream.Close). A Send
	// parked when Close is called on the same sink, from another task,
	// returns ErrClosed.
	Send(bufs ...[]byte) error
	// Close closes the sending half: the peer receives what was sent, and
	// then its Recv fails with ErrRecvFailed. A later Send returns
	// ErrClosed. Closing twice does nothing.
	//
	// Closing both halves is graceful in both runtimes: the peer receives
	// every byte of every Send that returned (of a cut Send, what Send
	// says), then ErrRecvFailed. Over TCP the kernel goes on sending them
	// after Close, then a FIN. Production can be asked for an abortive
	// close instead (network/tcp's Config.AbortiveClose, SO_LINGER 0): the
	// socket is then reset at once and the bytes the sender's kernel still
	// held are dropped (a 256 KiB Send to a peer reading nothing, then
	// Close: 128,000 bytes arrived over Linux loopback). The simulator has
	// no such option (see docs/PRODUCTION.md). Over TCP a socket closed
	// with received bytes it never read is reset even so (RFC 1122), and
	// nothing reaches a peer whose process died: a sender that must know
	// its bytes arrived waits for the peer to say so before it closes.
	Close() error
}

// Stream is the receiving half of a connection.
type Stream interface {
	// Recv parks until exactly n bytes have arrived and returns them in a
	// new slice. It fails with ErrRecvFailed when the peer's sink is closed
	// (or cut by a Send that unwound its task, see Sink.Send) before n
	// bytes arrive, and at once, without waiting or reserving
	// memory, with ErrRecvTooLarge (which matches ErrRecvFailed) when n is
	// negative or above the network's maximum receive size
	// (DefaultMaxRecvSize unless configured): a length decoded from a peer
	// is input, and a bad one is an error, never a panic. Memory for a
	// large n grows as bytes arrive. After any
	// error, or after a Recv that was abandoned mid-way, the stream is
	// poisoned: every later Recv returns ErrClosed and bytes already
	// buffered are lost. A Recv is abandoned when it unwinds its task (an
	// abort, or a Timeout whose time ran out), whether or not it had taken
	// bytes. A Recv parked when Close is called on the same stream, from
	// another task, returns ErrClosed.
	Recv(n int) ([]byte, error)
	// Peek returns up to max bytes that have already arrived and are
	// buffered locally, without consuming them and without waiting; it
	// returns an empty slice when nothing is buffered. The slice is valid
	// until the next Recv or Close; do not modify it.
	Peek(max int) []byte
	// Close closes the receiving half: bytes already received and not
	// taken are dropped. The connection stays open while the sink is: the
	// peer's Send still succeeds, its bytes taken into a buffer nobody
	// reads, and parks once that is full; it fails with ErrSendFailed once
	// both halves are closed (nettest SendToClosedStreamIsAccepted).
	// Closing twice does nothing.
	Close() error
}
