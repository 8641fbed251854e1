package simnet

import (
	"net/netip"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/internal/netlimit"
	"github.com/simrt/simrt/rtapi"
)

// segment is one Send on its way across a link: its n bytes are the next
// n of the pipe's flightQueue (segments arrive in the order they were
// sent, so their bytes leave that queue in order too).
type segment struct {
	at time.Time // when they arrive, if the link lets them through
	n  int
}

// pipe is one direction of a connection: what a sink has sent and its
// stream has not yet returned. Bytes travel in three stages: in flight on
// the link (flight), arrived at the receiving host (shared), and pulled by
// the stream (local, what Peek sees). Back-pressure counts the first two,
// so a sender may be at most BufferSize bytes ahead of the stream's pulls.
// Every field is guarded by the network's mutex.
type pipe struct {
	net      *Network
	link     *link
	peer     *pipe // the other direction of the same connection
	from, to netip.AddrPort

	flight      []segment
	head        int       // flight[head:] is still in flight
	flightBytes int       // the length of flightQueue
	flightQueue byteQueue // the bytes of flight[head:], in order: one buffer per pipe, not one per Send
	last        time.Time // arrival time of the latest segment
	shared      byteQueue
	local       byteQueue
	held        int // what local takes of the receiving host's memory (recvmem.go)

	sinkOpen, streamOpen bool
	reset                bool
	hostReset            bool // an end's host was reset (reset.go)

	// pushed and drained count every byte handed to the pipe and every
	// byte that left flight and shared for the stream's local buffer; a
	// Send is done once pushed-drained is within the buffer, whatever
	// happens to the stream afterwards.
	pushed, drained int64

	recvq core.WaitQueue // the stream, waiting for bytes
	sendq core.WaitQueue // the sink, waiting for the stream to drain

	timer   rtapi.Timer // the delivery timer
	onTimer func()      // timerFired, bound once
	timerAt time.Time
	hold    rtapi.Timer // the hold timer (HoldTimeout)
}

// Small Recv results are carved out of chunks shared by every pipe of a
// network: carveMax is the largest, and the chunks grow from carveFirst to
// carveLast bytes.
const (
	carveMax   = 256
	carveFirst = 256
	carveLast  = 4096
)

// carver hands out the slices small Recv results are copied into. It is
// guarded by the network's mutex.
type carver struct {
	carved []byte // what is left of the current chunk
	size   int    // the size of that chunk
}

// carve returns a new slice of k bytes for a Recv's result. A small one is
// cut from the network's current chunk, its capacity k, so that it is the
// caller's alone (an append to it reallocates) and most small Recvs cost
// no allocation of their own, however few each connection carries. A
// chunk lives as long as any slice cut from it does.
func (c *carver) carve(k int) []byte {
	if k > carveMax {
		return make([]byte, k)
	}
	if len(c.carved) < k {
		c.size = max(carveFirst, min(2*c.size, carveLast))
		c.carved = make([]byte, c.size)
	}
	out := c.carved[:k:k]
	c.carved = c.carved[k:]
	return out
}

func (p *pipe) inFlight() bool { return p.head < len(p.flight) }

// pending is what counts against the back-pressure threshold.
func (p *pipe) pending() int { return p.flightBytes + p.shared.len() }

func (p *pipe) alive() bool { return !p.reset && (p.sinkOpen || p.streamOpen) }

// refused reports whether the receiving end of p refuses bytes: the
// connection was reset, or that end closed both its halves (its stream,
// p's, and its sink, the peer pipe's). An end that closed only its stream
// still has its connection open, so bytes sent to it are taken and never
// read, as in a TCP receive buffer nobody reads (see push).
func (p *pipe) refused() bool {
	return p.reset || p.hostReset || !p.streamOpen && !p.peer.sinkOpen
}

// push hands the bytes of one Send to the link. Once the stream is closed
// they are counted but kept nowhere: nobody will read them, and since
// nothing drains them either, the sender is held by back-pressure once
// BufferSize of them wait, as by a full receive buffer.
func (p *pipe) push(bufs [][]byte, total int) {
	n := p.net
	l := p.link
	p.pushed += int64(total)
	if !p.streamOpen {
		return
	}
	now := n.rt.Now()
	at := now
	if !l.cfg.perfect() {
		at, l.busy = l.cfg.transit(now, l.busy, p.last, total, n.rng, &n.faults.loss)
		if l.cfgBy != nil && at.After(now) {
			l.cfgBy.Delayed++
		}
	} else if p.last.After(at) {
		at = p.last
	}
	p.last = at
	if !at.After(now) && !p.inFlight() && !l.blocked() {
		for _, b := range bufs {
			p.shared.write(b)
		}
		p.recvq.NotifyAll()
		return
	}
	if l.blocked() {
		n.blocker(l).Held++
	}
	for _, b := range bufs {
		p.flightQueue.write(b)
	}
	p.flight = append(p.flight, segment{at: at, n: total})
	p.flightBytes += total
	p.pump()
}

// pump delivers every segment that has arrived, unless the link holds them,
// and arms a timer for the next one.
func (p *pipe) pump() {
	if !p.inFlight() {
		p.stopHold()
		return
	}
	if p.link.blocked() {
		p.armHold()
		return
	}
	p.stopHold()
	now := p.net.rt.Now()
	moved := false
	for p.inFlight() && !p.flight[p.head].at.After(now) {
		s := p.flight[p.head]
		p.flight[p.head] = segment{}
		p.head++
		p.flightBytes -= s.n
		p.shared.write(p.flightQueue.bytes()[:s.n])
		p.flightQueue.consume(s.n)
		moved = true
	}
	if !p.inFlight() {
		p.flight, p.head = p.flight[:0], 0
	}
	if moved {
		p.recvq.NotifyAll()
	}
	if p.inFlight() {
		p.arm(p.flight[p.head].at, now)
	}
}

// arm makes sure a timer will pump the pipe at time at.
func (p *pipe) arm(at, now time.Time) {
	if p.timer != nil {
		if !p.timerAt.After(at) {
			return
		}
		p.timer.Stop()
	}
	if p.onTimer == nil { // made once per pipe: arming allocates nothing more
		p.onTimer = p.timerFired
	}
	p.timerAt = at
	p.timer = p.net.rt.AfterFunc(at.Sub(now), p.onTimer)
}

// timerFired pumps the pipe when its delivery timer fires. A stopped timer
// never fires, so the one firing is always the current one.
func (p *pipe) timerFired() {
	p.net.mu.Lock()
	defer p.net.mu.Unlock()
	p.timer = nil
	p.pump()
}

// armHold starts the HoldTimeout clock when a partition holds bytes.
func (p *pipe) armHold() {
	d := p.net.cfg.HoldTimeout
	if d <= 0 || p.hold != nil || !p.link.severed() {
		return
	}
	p.hold = p.net.rt.AfterFunc(d, func() {
		p.net.mu.Lock()
		defer p.net.mu.Unlock()
		if p.hold == nil {
			return
		}
		p.hold = nil
		if p.inFlight() && p.link.severed() {
			p.net.resetConn(p, "hold_timeout")
		}
	})
}

func (p *pipe) stopHold() {
	if p.hold != nil {
		p.hold.Stop()
		p.hold = nil
	}
}

// dropFlight loses every byte in flight.
func (p *pipe) dropFlight() {
	p.flight, p.head, p.flightBytes = nil, 0, 0
	p.flightQueue.reset()
}

// discard drops every byte and timer of the pipe.
func (p *pipe) discard() {
	p.dropFlight()
	p.shared.reset()
	p.local.reset()
	p.account()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.stopHold()
}

// pull moves arrived bytes into the stream's local buffer, up to
// max(n, BufferSize) local bytes, and wakes a sender the pull unblocked.
func (p *pipe) pull(n int) {
	limit := p.net.bufSize
	want := max(n, limit) - p.local.len()
	if want <= 0 || p.shared.len() == 0 {
		return
	}
	before := p.shared.len()
	p.shared.moveTo(&p.local, want)
	p.drained += int64(before - p.shared.len())
	if p.pending() <= limit {
		p.sendq.NotifyAll()
	}
}

// sink is the sending half of a pipe.
type sink struct {
	p        *pipe
	poisoned bool // a Send failed or was abandoned, or Close was called
}

var _ simrt.Sink = (*sink)(nil)

// Send implements simrt.Sink.Send. It returns once the stream has pulled
// enough of the pipe's bytes that at most BufferSize of them wait, so
// bytes pulled before the peer closes its stream count as delivered; a
// Close of the sink while Send is parked returns ErrClosed. A peer that
// closed only its stream still takes bytes, as TCP does: up to BufferSize
// waiting, then Send parks until the peer closes its sink too (then it
// fails with ErrSendFailed, as after a reset) or a Timeout cuts it.
func (s *sink) Send(bufs ...[]byte) error {
	p := s.p
	n := p.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if s.poisoned {
		return simrt.ErrClosed
	}
	if t := n.rt.CurrentTask(); t.InterruptPending() {
		// A Send of an interrupted task unwinds it and poisons the sink,
		// whether or not the bytes would fit, as in production, which
		// cannot know before the call whether it would block.
		s.poisoned = true
		s.cutIfUnwound(0, t.CheckInterrupt) // unwinds (the deferred Unlock runs), or clears a stale flag
		s.poisoned = false
	}
	if p.refused() {
		s.poisoned = true
		return simrt.ErrSendFailed
	}
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	if total == 0 {
		return nil
	}
	if chance(n.rng, p.link.cfg.Reset) {
		s.poisoned = true
		n.resetConn(p, "random")
		return simrt.ErrSendFailed
	}
	p.push(bufs, total)
	target := p.pushed - int64(n.bufSize) // done once drained reaches it
	for p.drained < target {
		s.poisoned = true // stays so if the wait unwinds or fails
		s.cutIfUnwound(total, func() { n.waitOn(&p.sendq, (*sendWait)(p)) })
		switch {
		case p.drained >= target:
		case !p.sinkOpen:
			return simrt.ErrClosed
		case p.refused():
			return simrt.ErrSendFailed
		}
		s.poisoned = false
	}
	return nil
}

// cutIfUnwound calls wait, which may unwind the Send's task; if it does,
// the sink is cut: the Send's bytes that had not left are dropped (see
// dropUnsent; sent is how many the Send pushed, the last push of the
// pipe), the sink is poisoned, and the peer's stream ends after the bytes
// that remain (its Recv fails with ErrRecvFailed once they are taken), as
// production's write half, shut down when a Send is cut, ends it. Called
// with mu held; an unwinding wait holds it again.
func (s *sink) cutIfUnwound(sent int, wait func()) {
	unwound := true
	defer func() {
		if unwound {
			s.p.dropUnsent(sent)
			s.closeLocked() // the sink's own Close is still due, and does nothing more
		}
	}()
	wait()
	unwound = false
}

// dropUnsent drops what a cut Send had not handed over, of the sent bytes
// it pushed last. push hands a whole Send to the link at once, for speed,
// but what a sender's kernel takes is bounded by its buffers: the bytes
// that left are those the stream has pulled (drained) and at most
// BufferSize beyond them, what back-pressure lets the pipe hold (in flight
// plus arrived). A cut Send keeps, of its own bytes, those below
// drained+BufferSize in the pipe's byte sequence; the rest were still the
// sender's, never sent, and are dropped from the tail of the pipe. The
// earlier Sends have all left: each returned once drained came within
// BufferSize of its end. No Send pushes after the cut one: a parked Send
// keeps the sink poisoned, and an unwound one closes it.
//
// The Send's bytes are one segment, so they are all in one place: in
// flight (the last segment: it keeps its arrival time and arrives
// shortened, or vanishes if nothing of it left), or arrived (the tail of
// shared; the stream has pulled none of what is dropped, since drained
// is below the cut). The link's bandwidth stays charged for the whole
// Send, and no random draw is made, so a cut changes nothing else a
// simulation sees. Called with mu held, before the sink is closed.
func (p *pipe) dropUnsent(sent int) {
	if p.reset || !p.streamOpen || sent == 0 {
		return // discarded already, or nothing of the Send was pushed
	}
	drop := int(min(max(p.pushed-p.drained-int64(p.net.bufSize), 0), int64(sent)))
	if drop == 0 {
		return
	}
	p.pushed -= int64(drop)
	if !p.inFlight() {
		p.shared.dropBack(drop)
		return
	}
	last := &p.flight[len(p.flight)-1]
	last.n -= drop
	p.flightBytes -= drop
	p.flightQueue.dropBack(drop)
	if last.n == 0 {
		p.flight = p.flight[:len(p.flight)-1]
		if !p.inFlight() {
			p.flight, p.head = p.flight[:0], 0 // a timer armed for it pumps nothing
		}
	}
}

// Close implements simrt.Sink.Close.
func (s *sink) Close() error {
	s.p.net.mu.Lock()
	defer s.p.net.mu.Unlock()
	s.closeLocked()
	return nil
}

func (s *sink) closeLocked() {
	p := s.p
	s.poisoned = true
	if p.sinkOpen {
		p.sinkOpen = false
		p.recvq.NotifyAll()
		p.sendq.NotifyAll() // a Send parked on this sink returns ErrClosed
		p.peer.closedEnd()
	}
}

// closedEnd wakes a Send parked toward an end that has now closed both
// halves (its sink just now, p's stream before): it fails (see refused).
func (p *pipe) closedEnd() {
	if !p.streamOpen {
		p.sendq.NotifyAll()
	}
}

// stream is the receiving half of a pipe.
type stream struct {
	p        *pipe
	poisoned bool
}

var _ simrt.Stream = (*stream)(nil)

// Recv implements simrt.Stream.Recv. For a negative k or one above
// MaxRecvSize it fails at once with ErrRecvTooLarge, and with
// ErrRecvMemory once the bytes it gathers would take its host past
// MaxRecvMemory; a Close of the stream
// while Recv is parked returns ErrClosed.
func (s *stream) Recv(k int) ([]byte, error) {
	p := s.p
	n := p.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if s.poisoned {
		return nil, simrt.ErrClosed
	}
	if k < 0 || k > n.cfg.MaxRecvSize {
		s.poison()
		return nil, netlimit.RecvSizeError("simnet", k, n.cfg.MaxRecvSize)
	}
	for {
		if !p.streamOpen {
			return nil, simrt.ErrClosed // closed while parked
		}
		if p.reset {
			s.poison()
			return nil, simrt.ErrRecvFailed
		}
		if err := p.recvGrowth(k); err != nil {
			s.poison()
			return nil, err
		}
		p.pull(k)
		p.account()
		if p.local.len() >= k {
			out := n.carver.carve(k)
			copy(out, p.local.bytes())
			p.local.consume(k)
			p.account()
			return out, nil
		}
		if !p.sinkOpen && !p.inFlight() && p.shared.len() == 0 {
			s.poison()
			return nil, simrt.ErrRecvFailed
		}
		s.poisoned = true // stays so if the wait unwinds
		n.waitOn(&p.recvq, (*recvWait)(p))
		s.poisoned = false
	}
}

// poison marks the stream unusable and drops what it had buffered.
func (s *stream) poison() {
	s.poisoned = true
	s.p.local.reset()
	s.p.account()
}

// Peek implements simrt.Stream.Peek.
func (s *stream) Peek(max int) []byte {
	p := s.p
	p.net.mu.Lock()
	defer p.net.mu.Unlock()
	if s.poisoned || max <= 0 {
		return nil
	}
	b := p.local.bytes()
	return b[:min(max, len(b)):min(max, len(b))]
}

// Close implements simrt.Stream.Close.
func (s *stream) Close() error {
	s.p.net.mu.Lock()
	defer s.p.net.mu.Unlock()
	s.closeLocked()
	return nil
}

func (s *stream) closeLocked() {
	p := s.p
	s.poison()
	if p.streamOpen {
		p.streamOpen = false
		p.discard()
		p.sendq.NotifyAll()
		p.recvq.NotifyAll() // a Recv parked on this stream returns ErrClosed
	}
}
