package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/netlimit"
)

// Config sets socket options and timeouts. The zero value is the default
// production network: TCP_NODELAY, a graceful close, a 10 s connect
// timeout and 60 s read and write timeouts.
type Config struct {
	// Nagle turns Nagle's algorithm on. The default sets TCP_NODELAY.
	Nagle bool
	// AbortiveClose sets SO_LINGER to 0 on every connection, so that
	// closing both halves resets the connection at once: the bytes the
	// sender's kernel still holds are dropped, and the peer receives only
	// those that had reached its own kernel, then its Recv fails (a
	// server that sent 256 KiB and closed delivered 128,000 bytes over
	// Linux loopback; one that sent and closed right after Accept made the
	// peer's Dial fail). The default, false, closes gracefully: the kernel
	// goes on sending what Send took, then a FIN, and the peer receives
	// every byte before its Recv fails. Even then the kernel resets a
	// connection closed with received bytes unread in its stream (RFC
	// 1122), and a peer that is gone cannot be reached; to know that bytes
	// arrived, wait for the peer's answer before closing.
	AbortiveClose bool
	// ConnectTimeout bounds Dial; past it Dial returns simrt.ErrTimeout.
	// Zero means 10s.
	ConnectTimeout time.Duration
	// ReadTimeout bounds each whole Recv; past it Recv returns
	// simrt.ErrTimeout and poisons the stream. Zero means 60s. The
	// deadline is refreshed lazily, so a Recv may give up after as little
	// as 7/8 of ReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout bounds each whole Send; past it Send returns
	// simrt.ErrTimeout and poisons the sink. Zero means 60s; likewise 7/8
	// of it at the least.
	WriteTimeout time.Duration
	// ReadBufferSize is the size of each stream's read buffer. A Recv of
	// more bytes grows it as the bytes arrive, at most doubling it per
	// read, so memory follows what the peer has sent, not what Recv asked
	// for. Zero means 64 KiB.
	ReadBufferSize int
	// MaxRecvSize is the largest n Recv accepts; a larger one fails at
	// once with simrt.ErrRecvTooLarge and poisons the stream. Zero means
	// simrt.DefaultMaxRecvSize (32 MiB), as in the simulator.
	MaxRecvSize int
	// MaxRecvMemory bounds the memory the streams of the network hold
	// together beyond ReadBufferSize each: what the buffers of Recvs
	// larger than ReadBufferSize have grown to while their bytes arrive.
	// A Recv whose buffer would grow past it fails with
	// simrt.ErrRecvMemory (naming this field) and poisons its stream,
	// which gives its memory back; the bytes a Recv returned are the
	// caller's and count no more. Zero means simrt.DefaultMaxRecvMemory
	// (256 MiB), as in the simulator.
	MaxRecvMemory int
	// MaxConns bounds the connections open at once, dialled and accepted
	// (a connection counts until both its halves are closed). A Dial
	// past it fails at once with simrt.ErrConnLimit (which matches
	// simrt.ErrConnectionFailed); a connection the kernel accepts past it
	// is closed at once (its peer's Recv fails) and Accept waits for the
	// next. Zero means no bound but the process's file descriptor limit,
	// at which Accept waits (see Listener.Accept).
	MaxConns int
}

func (c Config) withDefaults() Config {
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 10 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 60 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 60 * time.Second
	}
	if c.ReadBufferSize == 0 {
		c.ReadBufferSize = 64 << 10
	}
	if c.MaxRecvSize == 0 {
		c.MaxRecvSize = simrt.DefaultMaxRecvSize
	}
	if c.MaxRecvMemory == 0 {
		c.MaxRecvMemory = simrt.DefaultMaxRecvMemory
	}
	return c
}

// Network is the operating system's TCP stack as a simrt.Network. It is
// safe for concurrent use.
type Network struct {
	cfg     Config
	recvMem netlimit.Budget // bytes of grown read buffers (MaxRecvMemory)
	conns   netlimit.Budget // open connections (MaxConns)
}

var _ simrt.Network = (*Network)(nil)

// New returns a TCP network. It panics on a negative Config field.
func New(cfg Config) *Network {
	if cfg.ConnectTimeout < 0 || cfg.ReadTimeout < 0 || cfg.WriteTimeout < 0 || cfg.ReadBufferSize < 0 ||
		cfg.MaxRecvSize < 0 || cfg.MaxRecvMemory < 0 || cfg.MaxConns < 0 {
		panic("tcp.New: Config fields must not be negative")
	}
	n := &Network{cfg: cfg.withDefaults()}
	n.recvMem.Max = int64(n.cfg.MaxRecvMemory)
	n.conns.Max = int64(n.cfg.MaxConns)
	return n
}

// Bind implements simrt.Network.Bind. Port 0 picks a free port; Addr
// tells which. The kernel's rules apply, which the simulator shares: a
// closed listener's address may be bound again at once (Go sets
// SO_REUSEADDR), and an unspecified address (0.0.0.0:p or [::]:p, one
// dual-stack socket) takes port p on every address, so a Bind of
// 127.0.0.1:p beside it fails with EADDRINUSE, and the reverse too. An
// invalid address (the zero AddrPort) fails with simrt.ErrBindFailed. A failure wraps both simrt.ErrBindFailed and the operating
// system's error, which names the address (errors.Is(err,
// syscall.EADDRINUSE) tells a busy port).
func (n *Network) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	if !addr.IsValid() { // net would take it for [::]:0
		return nil, fmt.Errorf("%w: invalid address %v", simrt.ErrBindFailed, addr)
	}
	ln, err := net.ListenTCP("tcp", net.TCPAddrFromAddrPort(addr))
	if err != nil {
		// The operating system's error names the address.
		return nil, fmt.Errorf("%w: %w", simrt.ErrBindFailed, err)
	}
	return newListener(n, ln), nil
}

// Dial implements simrt.Network.Dial: ErrTimeout past ConnectTimeout,
// ErrConnectionFailed on any other error, each wrapped with the operating
// system's error, which names the address (errors.Is(err,
// syscall.ECONNREFUSED) tells a refused connection).
func (n *Network) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	return n.DialContext(context.Background(), addr)
}

// DialContext is Dial, abandoned when ctx is done: the connect then stops
// at once and DialContext returns simrt.ErrClosed (wrapping ctx's error).
// No goroutine it started outlives it.
func (n *Network) DialContext(parent context.Context, addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	if !n.conns.Take(1) {
		return nil, nil, fmt.Errorf("tcp: dial %v: %d connections open, the most MaxConns (Config.MaxConns) allows: %w", addr, n.cfg.MaxConns, simrt.ErrConnLimit)
	}
	ctx, cancel := context.WithTimeout(parent, n.cfg.ConnectTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		n.conns.Give(1)
		// The operating system's error names the address.
		switch {
		case parent.Err() != nil:
			return nil, nil, fmt.Errorf("%w: %w", simrt.ErrClosed, err)
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			return nil, nil, fmt.Errorf("%w: %w", simrt.ErrTimeout, err)
		}
		return nil, nil, fmt.Errorf("%w: %w", simrt.ErrConnectionFailed, err)
	}
	si, st := n.wrap(c.(*net.TCPConn))
	return si, st, nil
}

// wrap sets the socket options and splits the connection into halves; the
// caller has taken its place in n.conns, which the close of both halves
// gives back. Failing to set an option is not an error (the reference only
// logs it).
func (n *Network) wrap(c *net.TCPConn) (*sink, *stream) {
	c.SetNoDelay(!n.cfg.Nagle)
	if n.cfg.AbortiveClose {
		c.SetLinger(0)
	}
	sc := &conn{c: c, conns: &n.conns}
	base := make([]byte, n.cfg.ReadBufferSize)
	return &sink{n: n, c: sc}, &stream{n: n, c: sc, base: base, buf: base}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.addr }

// Interrupt closes the listener, so that an Accept blocked on it (or
// waiting to retry), on another goroutine, returns at once. Safe to call
// concurrently with Accept. To cut one Accept short and leave the
// listener open, use an AcceptCall.
func (l *listener) Interrupt() { l.shut() }

// Close implements simrt.Listener.Close. It may be called from any
// goroutine, also while an Accept is blocked, which then returns
// simrt.ErrClosed. Connections handed on by interrupted Accepts and not
// taken yet are closed.
func (l *listener) Close() error {
	l.shut()
	return nil
}
