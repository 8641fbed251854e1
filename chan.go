package simrt

import (
	"sync/atomic"

	"github.com/simrt/simrt/internal/core"
)

// Chan is a FIFO channel between tasks: unbuffered, bounded or unbounded.
// Send parks while a bounded channel is full; Recv parks while it is empty.
// On an unbuffered channel (NewChan(0)) Send and Recv meet: each parks until
// the other side arrives, as with a Go channel made by make(chan T). It
// works the same in both runtimes. A receiver parked on a Chan is handed
// its value by the sender directly, as Go's runtime does, so it need not
// take the channel's lock again when it wakes; receivers are served in the
// order they parked. A receiver aborted at the moment a value is handed to
// it gives the value back when it unwinds: to the next parked receiver, or
// to the head of a buffered channel (which may then hold one value more
// than its capacity); on an unbuffered channel with nobody else waiting it
// is lost with the receiver, whose sender has already returned. A Send or
// Recv whose Timeout runs out at the moment a partner completes it returns
// as completed (the timed function wins the tie, see Timeout). The zero
// value is not usable; use NewChan or NewUnboundedChan.
type Chan[T any] struct {
	mu     core.Lock
	site   uintptr
	buf    []T // ring buffer
	head   int
	n      int
	limit  int // 0: unbounded
	closed bool
	ticker bool // the channel is a Ticker's (for reports; site is NewTicker's caller)
	recvq  core.WaitQueue
	sendq  core.WaitQueue
	// unbuffered is set on a channel made by NewChan(0), which uses no
	// buffer: its senders wait to be completed in place too.
	unbuffered bool
	// spare is a plain wait's waiter that is no longer in use, kept so
	// that steady traffic allocates nothing (see getWait).
	spare atomic.Pointer[syncWaiter[T]]
}

// NewChan returns a channel that holds at most capacity values. With
// capacity 0 the channel is unbuffered: a Send completes only when a
// receiver takes the value, as with make(chan T). It panics if capacity is
// negative; use NewUnboundedChan for a channel that never blocks Send.
func NewChan[T any](capacity int) *Chan[T] {
	if capacity < 0 {
		panic("simrt.NewChan: negative capacity (use 0 for an unbuffered channel, NewUnboundedChan for no limit)")
	}
	if capacity == 0 {
		return &Chan[T]{unbuffered: true, site: callerPC()}
	}
	return &Chan[T]{buf: make([]T, min(capacity, 64)), limit: capacity, site: callerPC()}
}

// NewUnboundedChan returns a channel whose Send never parks.
func NewUnboundedChan[T any]() *Chan[T] {
	return &Chan[T]{buf: make([]T, 8), site: callerPC()}
}

func (c *Chan[T]) full() bool { return c.limit > 0 && c.n >= c.limit }

func (c *Chan[T]) push(v T) {
	if c.n == len(c.buf) {
		c.grow()
	}
	c.buf[(c.head+c.n)%len(c.buf)] = v
	c.n++
}

// grow doubles the ring buffer.
func (c *Chan[T]) grow() {
	nb := make([]T, 2*len(c.buf))
	k := copy(nb, c.buf[c.head:])
	copy(nb[k:], c.buf[:c.head])
	c.buf, c.head = nb, 0
}

func (c *Chan[T]) pop() T {
	var zero T
	v := c.buf[c.head]
	c.buf[c.head] = zero
	c.head = (c.head + 1) % len(c.buf)
	c.n--
	return v
}

// pushFront puts v back at the head of the buffer, past the channel's
// capacity if it is full: it was the oldest value (see handBack).
func (c *Chan[T]) pushFront(v T) {
	if c.n == len(c.buf) {
		c.grow()
	}
	c.head = (c.head - 1 + len(c.buf)) % len(c.buf)
	c.buf[c.head] = v
	c.n++
}

// Send queues v, parking while the channel is full; on an unbuffered
// channel it parks until a receiver has taken v. It returns ErrClosed if the
// channel is (or becomes) closed; v is then not delivered. It panics at the
// call if ctx is nil.
func (c *Chan[T]) Send(ctx Caller, v T) error {
	mustContext(ctx == nil, "Chan.Send")
	t := ctx.CurrentTask() // found once: see Recv
	c.mu.Enter(t)
	if c.unbuffered {
		return c.sendSync(t, v)
	}
	c.mu.Lock()
	done, err := c.trySend(v)
	if !done {
		waitUntilOn(ctx, &c.mu, &c.sendq, (*chanSend[T])(c), c.forwardSend, func() bool {
			done, err = c.retrySend(v)
			return done
		})
	}
	c.mu.Unlock()
	return err
}

// TrySend queues v if there is room and reports whether it did. It returns
// false on a full or closed channel, and on an unbuffered channel unless a
// receiver is waiting (which then takes v).
func (c *Chan[T]) TrySend(v T) bool {
	ok := c.trySendOp(v)
	c.mu.Point()
	return ok
}

func (c *Chan[T]) trySendOp(v T) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unbuffered {
		return c.trySendSync(v)
	}
	done, err := c.trySend(v)
	return done && err == nil
}

// trySend queues v if there is room. done reports whether the send is over:
// v was queued (err nil) or the channel is closed (ErrClosed). Called with
// mu held.
func (c *Chan[T]) trySend(v T) (done bool, err error) {
	if c.closed {
		return true, ErrClosed
	}
	if c.n == 0 { // receivers park only on an empty channel
		if r := c.recvq.Claim(nil); r != nil {
			handTo(r, v)
			return true, nil
		}
	}
	if c.full() {
		return false, nil
	}
	c.push(v)
	return true, nil
}

// retrySend is trySend for a sender woken on the send queue, which a
// receiver notified because it freed a slot. If v goes straight to a
// receiver that parked on the emptied channel meanwhile, the slot is still
// free, so the wake-up passes on to the next parked sender: kept, it would
// leave that sender waiting on a channel with room. Called with mu held.
func (c *Chan[T]) retrySend(v T) (done bool, err error) {
	n := c.n
	done, err = c.trySend(v)
	if done && err == nil && c.n == n { // handed to a receiver, not queued
		c.forwardSend()
	}
	return done, err
}

// Recv returns the next value, parking while the channel is empty (on an
// unbuffered channel: until a sender arrives). After Close, it returns the
// values still queued and then ok=false. It panics at the call if ctx is
// nil.
func (c *Chan[T]) Recv(ctx Caller) (v T, ok bool) {
	mustContext(ctx == nil, "Chan.Recv")
	t := ctx.CurrentTask() // an interface call: found once per Recv
	c.mu.Enter(t)
	if c.unbuffered {
		return c.recvSync(t)
	}
	c.mu.Lock()
	if v, ok, done := c.tryRecv(); done {
		c.mu.Unlock()
		return v, ok
	}
	return c.recvParked(t)
}

// TryRecv returns the next value without parking; ok is false when the
// channel is empty (on an unbuffered channel: when no sender is waiting).
func (c *Chan[T]) TryRecv() (v T, ok bool) {
	v, ok = c.tryRecvOp()
	c.mu.Point()
	return v, ok
}

func (c *Chan[T]) tryRecvOp() (v T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unbuffered {
		return c.tryRecvSync()
	}
	v, ok, _ = c.tryRecv()
	return v, ok
}

// tryRecv takes the next value if there is one (ok). done reports whether
// the receive is over: a value was taken, or the channel is closed and
// drained. Called with mu held.
func (c *Chan[T]) tryRecv() (v T, ok, done bool) {
	if c.n > 0 {
		v = c.pop()
		c.sendq.NotifyOne()
		return v, true, true
	}
	return v, false, c.closed
}

// Close closes the channel: later Sends fail with ErrClosed, and Recv drains
// what is queued and then reports ok=false. A Send parked on it returns
// ErrClosed, its value undelivered; a Recv parked on an empty channel
// reports ok=false. Closing twice does nothing.
func (c *Chan[T]) Close() {
	c.closeOp()
	c.mu.Point()
}

func (c *Chan[T]) closeOp() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.recvq.NotifyAll()
	c.sendq.NotifyAll()
}

// Len returns the number of queued values (always 0 on an unbuffered
// channel).
func (c *Chan[T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// forwardSend passes an unused send notification on. Called with mu held.
func (c *Chan[T]) forwardSend() {
	if !c.full() || c.closed {
		c.sendq.NotifyOne()
	}
}

// OnRecv is a Select case that receives a value (ok=false once the channel
// is closed and drained) and passes it to f, which may be nil.
// It panics at the call if c is nil.
func (c *Chan[T]) OnRecv(f func(v T, ok bool)) Case {
	mustChan(c == nil, "Chan.OnRecv")
	return &primCase[recvState[T], func(T, bool)]{p: (*chanRecv[T])(c), f: f}
}

// OnSend is a Select case that sends v (err is ErrClosed on a closed
// channel) and then calls f, which may be nil. On an unbuffered channel the
// case completes when a receiver takes v. It panics at the call if c is
// nil.
func (c *Chan[T]) OnSend(v T, f func(err error)) Case {
	mustChan(c == nil, "Chan.OnSend")
	return &primCase[sendState[T], func(error)]{p: (*chanSend[T])(c), f: f, s: sendState[T]{v: v}}
}

// mustChan panics, naming fn, if the channel fn was called on is nil: a
// case on a nil channel would otherwise fail only once Select arms it.
func mustChan(isNil bool, fn string) {
	if isNil {
		panic("simrt: " + fn + " called on a nil *Chan")
	}
}

// recvState is the state of a receive case: what it received. v is its
// first field: with the case's waiter just before it (see primCase), the
// two are the syncWaiter through which a sender completes the case.
type recvState[T any] struct {
	v  T
	ok bool
}

// sendState is the state of a send case: the value it offers (first, as
// in recvState) and the outcome.
type sendState[T any] struct {
	v   T
	err error
}

func (c *chanRecv[T]) armCase(s *recvState[T], w *core.Waiter, sel *core.Selection) bool {
	return (*Chan[T])(c).armRecv(s, syncOf[T](w), sel)
}

func (c *chanRecv[T]) disarmCase(s *recvState[T], w *core.Waiter) bool {
	return (*Chan[T])(c).disarmRecv(s, syncOf[T](w))
}

// undoCase gives back a value a sender handed to the case of a Select
// that unwinds instead of taking it (see handBack).
func (c *chanRecv[T]) undoCase(s *recvState[T]) {
	ch := (*Chan[T])(c)
	ch.mu.Lock()
	ch.handBack(s.v)
	ch.mu.Unlock()
}

func (c *chanRecv[T]) fireCase(s *recvState[T], f func(T, bool)) {
	if f != nil {
		f(s.v, s.ok)
	}
}

func (c *chanRecv[T]) describeCase(*recvState[T]) string { return c.BlockedOn() }

func (c *chanSend[T]) armCase(s *sendState[T], w *core.Waiter, sel *core.Selection) bool {
	ch := (*Chan[T])(c)
	if ch.unbuffered {
		return ch.armSyncSend(s, syncOf[T](w), sel)
	}
	return armNotified(&ch.mu, &ch.sendq, w, func() bool {
		var done bool
		done, s.err = ch.trySend(s.v)
		return done
	})
}

func (c *chanSend[T]) disarmCase(s *sendState[T], w *core.Waiter) bool {
	ch := (*Chan[T])(c)
	if ch.unbuffered {
		return ch.disarmSyncSend(syncOf[T](w))
	}
	return disarmNotified(&ch.mu, &ch.sendq, w, ch.forwardSend)
}

func (c *chanSend[T]) fireCase(s *sendState[T], f func(error)) {
	if f != nil {
		f(s.err)
	}
}

func (c *chanSend[T]) describeCase(*sendState[T]) string { return c.BlockedOn() }
