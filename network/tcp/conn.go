package tcp

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/netlimit"
)

// conn is the socket both halves share; it is closed when both are.
type conn struct {
	c     *net.TCPConn
	conns *netlimit.Budget // the network's open connections, given back at close

	mu                       sync.Mutex
	sinkClosed, streamClosed bool
}

// closeHalf shuts down one direction, and the socket once both are done.
func (c *conn) closeHalf(write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		if c.sinkClosed {
			return
		}
		c.sinkClosed = true
	} else {
		if c.streamClosed {
			return
		}
		c.streamClosed = true
	}
	if c.sinkClosed && c.streamClosed {
		c.c.Close()
		c.conns.Give(1)
		return
	}
	if write {
		c.c.CloseWrite()
	} else {
		c.c.CloseRead()
	}
}

// A half is used by one task at a time (poisoned, the read buffer and the
// deadline belong to that task), but Close may come from any goroutine, as
// net.Conn allows: it sets only closed and shuts the half down in the
// kernel, which cuts a blocked system call.

type sink struct {
	n        *Network
	c        *conn
	poisoned bool
	closed   atomic.Bool // Close was called
	deadline time.Time   // the write deadline in force
	// vec keeps the backing array of iov, the buffers of a vectored Send
	// that writev consumes.
	vec, iov net.Buffers
}

// maxKeptVec bounds the buffers a sink keeps room for between Sends.
const maxKeptVec = 64

var _ simrt.Sink = (*sink)(nil)

// Send implements simrt.Sink.Send: ErrTimeout past WriteTimeout,
// ErrClosed if Close is called meanwhile, ErrSendFailed on any other
// error, and in each case the write half is shut down and the sink
// poisoned. Call it from one task at a time.
func (s *sink) Send(bufs ...[]byte) error {
	if s.poisoned || s.closed.Load() {
		return simrt.ErrClosed
	}
	s.poisoned = true // stays so unless Send completes
	if err := s.writeBlocking(bufs); err != nil {
		return err
	}
	s.poisoned = false
	return nil
}

// writeBlocking writes bufs on the calling goroutine, bounded by
// WriteTimeout; on error the sink is failed. Several buffers leave in one
// writev, without being copied; the slice writev consumes is the sink's
// own, reused, so that a Send allocates nothing.
func (s *sink) writeBlocking(bufs [][]byte) error {
	s.deadline = refreshDeadline(s.deadline, s.n.cfg.WriteTimeout, s.c.c.SetWriteDeadline)
	var err error
	switch {
	case len(bufs) == 1:
		if len(bufs[0]) > 0 {
			_, err = s.c.c.Write(bufs[0])
		}
	case len(bufs) > 1:
		s.iov = append(s.vec[:0], bufs...)
		s.vec = s.iov[:0]
		_, err = s.iov.WriteTo(s.c.c)
		clear(s.vec[:len(bufs)]) // keep no reference to the caller's bytes
		s.iov = nil
		if cap(s.vec) > maxKeptVec {
			s.vec = nil
		}
	}
	if err != nil {
		if isTimeout(err) {
			return s.fail(simrt.ErrTimeout)
		}
		return s.fail(simrt.ErrSendFailed)
	}
	return nil
}

// refreshDeadline moves a connection's deadline to timeout from now, but
// only when the one in force is more than an eighth of timeout too early:
// setting a deadline costs a timer update in the Go runtime, and a
// ping-pong would pay it on every message. An operation therefore times out
// after between 7/8 and all of timeout.
func refreshDeadline(cur time.Time, timeout time.Duration, set func(time.Time) error) time.Time {
	want := time.Now().Add(timeout)
	if want.Sub(cur) <= timeout/8 {
		return cur
	}
	set(want)
	return want
}

// fail poisons the sink after a failed write and returns err, or
// ErrClosed if the failure is Close cutting the write.
func (s *sink) fail(err error) error {
	s.poisoned = true
	s.c.c.CloseWrite()
	if s.closed.Load() {
		return simrt.ErrClosed
	}
	return err
}

// Interrupt shuts the write half down in the kernel, so that a Send
// blocked on it, on another goroutine, fails at once (and poisons the
// sink). It touches nothing else and is safe to call concurrently with
// Send; the sink must still be closed.
func (s *sink) Interrupt() { s.c.c.CloseWrite() }

// Close implements simrt.Sink.Close: it shuts down the write half (the
// peer reads the end of the stream), or closes the socket if the stream
// is closed too. It may be called from any goroutine, also while a Send
// is blocked, which then returns ErrClosed.
func (s *sink) Close() error {
	s.closed.Store(true)
	s.c.closeHalf(true)
	return nil
}

type stream struct {
	n        *Network
	c        *conn
	base     []byte // the ReadBufferSize buffer, kept while buf has grown
	buf      []byte
	r, w     int // buf[r:w] is buffered
	poisoned bool
	closed   atomic.Bool // Close was called
	deadline time.Time   // the read deadline in force
	// held is len(buf) while buf is not base: what the stream has taken
	// of the network's receive memory (MaxRecvMemory). Close gives it
	// back too, from any goroutine, hence atomic.
	held atomic.Int64
}

var _ simrt.Stream = (*stream)(nil)

// Recv implements simrt.Stream.Recv: ErrRecvTooLarge for a negative n or
// one above MaxRecvSize, ErrRecvMemory when its buffer would grow past
// MaxRecvMemory, ErrTimeout past ReadTimeout, ErrClosed if Close
// is called meanwhile, ErrRecvFailed at the end of the stream or on any
// other error; each poisons the stream. Call it from one task at a time.
func (s *stream) Recv(n int) ([]byte, error) {
	if s.poisoned || s.closed.Load() {
		return nil, simrt.ErrClosed
	}
	if n < 0 || n > s.n.cfg.MaxRecvSize {
		s.poison()
		return nil, netlimit.RecvSizeError("tcp", n, s.n.cfg.MaxRecvSize)
	}
	if s.w-s.r < n {
		s.poisoned = true // stays so unless Recv completes
		if err := s.fill(n); err != nil {
			s.poison()
			if s.closed.Load() {
				return nil, simrt.ErrClosed
			}
			return nil, err
		}
		s.poisoned = false
	}
	if s.w-s.r == n && len(s.buf) > len(s.base) {
		// A buffer grown for this Recv holds exactly its bytes: hand it
		// over instead of copying, and go back to the small one.
		out := s.buf[s.r:s.w:s.w]
		s.toBase()
		return out, nil
	}
	out := make([]byte, n)
	copy(out, s.buf[s.r:])
	s.r += n
	if s.r == s.w {
		s.toBase()
	} else if s.closed.Load() {
		s.giveBack() // Close came meanwhile: the bytes left go with the stream
	}
	return out, nil
}

// poison marks the stream unusable and drops what it had buffered.
func (s *stream) poison() {
	s.poisoned = true
	s.toBase()
}

// toBase empties the stream's buffer and goes back to the small one,
// giving back the receive memory a grown one held.
func (s *stream) toBase() {
	s.buf, s.r, s.w = s.base, 0, 0
	s.giveBack()
}

// giveBack returns what the stream holds of the network's receive memory.
func (s *stream) giveBack() {
	if s.held.Load() == 0 { // the common case, a read with no write
		return
	}
	if h := s.held.Swap(0); h != 0 {
		s.n.recvMem.Give(h)
	}
}

// room makes space in buf to read more of a Recv of n bytes: it compacts
// the buffer if n would not fit after r, and grows it only once it is
// full, at most doubling it and never past n. Memory therefore follows the
// bytes that have arrived (at most twice them, plus ReadBufferSize), not
// the n a peer may have chosen. A grown buffer takes its size from the
// network's receive memory; room fails with ErrRecvMemory if that would
// pass MaxRecvMemory.
func (s *stream) room(n int) error {
	if len(s.buf)-s.r >= n {
		return nil
	}
	if s.r > 0 {
		s.w = copy(s.buf, s.buf[s.r:s.w])
		s.r = 0
	}
	if s.w == len(s.buf) && len(s.buf) < n {
		size := min(n, 2*len(s.buf))
		need := int64(size) - s.held.Load()
		if !s.n.recvMem.Take(need) {
			return netlimit.RecvMemoryError("tcp", n, int(need), int(s.n.recvMem.Used()), s.n.cfg.MaxRecvMemory)
		}
		s.held.Add(need)
		nb := make([]byte, size)
		copy(nb, s.buf[:s.w])
		s.buf = nb
	}
	return nil
}

// fill reads until at least n bytes are buffered, bounded by
// ReadTimeout.
func (s *stream) fill(n int) error {
	s.deadline = refreshDeadline(s.deadline, s.n.cfg.ReadTimeout, s.c.c.SetReadDeadline)
	for s.w-s.r < n {
		if err := s.room(n); err != nil {
			return err
		}
		k, err := s.c.c.Read(s.buf[s.w:])
		s.w += k
		if err != nil {
			if isTimeout(err) {
				return simrt.ErrTimeout
			}
			return simrt.ErrRecvFailed
		}
	}
	return nil
}

// Peek implements simrt.Stream.Peek: the bytes the read buffer holds.
func (s *stream) Peek(max int) []byte {
	if s.poisoned || max <= 0 || s.closed.Load() {
		return nil
	}
	end := s.r + min(max, s.w-s.r) // not s.r+max: it may overflow
	return s.buf[s.r:end:end]
}

// Interrupt shuts the read half down in the kernel, so that a Recv
// blocked on it, on another goroutine, fails at once (and poisons the
// stream). It touches nothing else and is safe to call concurrently with
// Recv; the stream must still be closed.
func (s *stream) Interrupt() { s.c.c.CloseRead() }

// Close implements simrt.Stream.Close: it shuts down the read half, or
// closes the socket if the sink is closed too. It may be called from any
// goroutine, also while a Recv is blocked, which then returns ErrClosed.
// The buffered bytes are dropped with the stream.
func (s *stream) Close() error {
	s.closed.Store(true)
	s.c.closeHalf(false)
	s.giveBack()
	return nil
}
