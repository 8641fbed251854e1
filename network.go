package simrt

import "net/netip"

// Network binds listeners and dials connections. A connection is two
// independent halves: a Sink to send and a Stream to receive.
type Network interface {
	// Bind listens on addr, or returns ErrBindFailed.
	Bind(addr netip.AddrPort) (Listener, error)
	// Dial connects to addr, or returns ErrConnectionFailed (or ErrTimeout).
	Dial(addr netip.AddrPort) (Sink, Stream, error)
}

// Listener accepts connections.
type Listener interface {
	// Accept parks until a peer connects and returns its address and the
	// two halves of the connection.
	Accept() (netip.AddrPort, Sink, Stream, error)
	// Addr returns the address the listener is bound to.
	Addr() netip.AddrPort
	// Close stops accepting. Accepted connections stay open.
	Close() error
}

// Sink is the sending half of a connection.
type Sink interface {
	// Send sends all bytes of bufs, in order, as one logical sequence. After
	// any error, or after a Send that was abandoned mid-way (its task
	// aborted or its Timeout expired), every later Send returns ErrClosed.
	Send(bufs ...[]byte) error
	// Close closes the sending half; the peer's Recv then fails.
	Close() error
}

// Stream is the receiving half of a connection.
type Stream interface {
	// Recv parks until exactly n bytes have arrived and returns them. After
	// any error, or after an abandoned Recv, every later Recv returns
	// ErrClosed.
	Recv(n int) ([]byte, error)
	// Peek returns up to max bytes that have already arrived, without
	// consuming them and without waiting.
	Peek(max int) []byte
	// Close closes the receiving half.
	Close() error
}
