//go:build simrt_plain

package plaingo

import (
	"simrthook"
	"unsafe"

	"github.com/simrt/simrt/internal/core"
)

// A task never blocks on a native channel: it tries the native operation
// without blocking and, when that would block, parks on the channel's
// waiter queues here, keyed by the channel's pointer. A partner that
// arrives completes a parked waiter in place (core.WaitQueue.Claim): a
// sender hands its value to a parked receiver, a receiver takes a parked
// sender's value (the unbuffered rendezvous, which the native channel
// cannot do without a blocked goroutine) or, on a buffered channel, moves it
// into the room it just made. Close notifies every waiter, which looks
// again and finds the channel closed natively. Values wait in boxes the
// waiters own (never on a parked task's stack, which the collector may
// move).

// chanState is the waiters of one channel.
type chanState struct {
	ch           unsafe.Pointer
	recvq, sendq core.WaitQueue
}

// waiter is one task waiting at one channel: a plain Send or Recv, or one
// case of a Select. Its core.Waiter is its first field (see waiterOf).
type waiter struct {
	core.Waiter
	cs    *chanState
	typ   simrthook.Type
	box   unsafe.Pointer // the value offered or received; typ.Key's type
	key   unsafe.Pointer // the type of box
	index int            // the case, in a Select
	send  bool
	at    stack
	g     *goroutine
}

func waiterOf(w *core.Waiter) *waiter { return (*waiter)(unsafe.Pointer(w)) }

// BlockedOn implements core.Blocker.
func (w *waiter) BlockedOn() string {
	op := "receive from chan"
	if w.send {
		op = "send on chan"
	}
	return op + " " + w.at.where() + w.started()
}

func (w *waiter) started() string {
	if w.g == nil {
		return ""
	}
	return " (goroutine " + w.g.name + " started at " + w.g.site.site() + ")"
}

// state returns the waiters of ch, made if need be.
func (s *sim) state(ch unsafe.Pointer) *chanState {
	if cs := s.chans[ch]; cs != nil {
		return cs
	}
	if len(s.chans) >= s.sweepAt {
		s.sweep()
	}
	var cs *chanState
	if n := len(s.free); n > 0 {
		cs = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		cs = new(chanState)
	}
	cs.ch = ch
	s.chans[ch] = cs
	return cs
}

// release is called when a waiter leaves cs. The entry stays while the
// channel is in use (a channel that parks tasks again and again would
// otherwise cost a map delete and insert per park); sweep drops the idle
// ones once the table has doubled.
func (s *sim) release(cs *chanState) {}

// sweep forgets the channels nobody waits on, keeping their entries for
// reuse. Which entry goes to which channel next changes nothing a task
// can see, so the map's order does not matter here.
func (s *sim) sweep() {
	for ch, cs := range s.chans {
		if cs.recvq.Empty() && cs.sendq.Empty() {
			delete(s.chans, ch)
			cs.ch = nil
			s.free = append(s.free, cs)
		}
	}
	s.sweepAt = max(64, 2*len(s.chans))
}

// getWaiter returns a waiter of t at cs for values of type typ, with its
// box (kept from the waiter's last use when the type is the same).
func (s *sim) getWaiter(t *core.Task, cs *chanState, typ *simrthook.Type, sel *core.Selection) *waiter {
	var w *waiter
	if n := len(s.waiters); n > 0 {
		w = s.waiters[n-1]
		s.waiters = s.waiters[:n-1]
	} else {
		w = new(waiter)
	}
	w.Reset(t, sel)
	if w.key != typ.Key {
		w.box, w.key = typ.New(), typ.Key
	}
	w.cs, w.typ, w.g = cs, *typ, s.gs[t]
	return w
}

// putWaiter keeps w for reuse; its box is zero.
func (s *sim) putWaiter(w *waiter) {
	w.cs, w.Task, w.g = nil, nil, nil
	s.waiters = append(s.waiters, w)
}

// complete marks the claimed waiter w done and wakes its task.
func complete(w *waiter) {
	w.Done.Store(true)
	w.Task.Unpark()
}

// handTo gives the value at v to a parked receiver of cs, if there is one.
func handTo(cs *chanState, v unsafe.Pointer, typ *simrthook.Type, own *core.Selection) bool {
	if cs == nil {
		return false
	}
	r := cs.recvq.Claim(own)
	if r == nil {
		return false
	}
	w := waiterOf(r)
	typ.Move(w.box, v)
	complete(w)
	return true
}

// takeFrom takes into v the value of a parked sender of cs, if there is
// one.
func takeFrom(cs *chanState, v unsafe.Pointer, typ *simrthook.Type, own *core.Selection) bool {
	if cs == nil {
		return false
	}
	sw := cs.sendq.Claim(own)
	if sw == nil {
		return false
	}
	w := waiterOf(sw)
	typ.Move(v, w.box)
	complete(w)
	return true
}

// refill moves the value of a parked sender into the room a receive just
// made in a buffered channel.
func refill(cs *chanState, ch unsafe.Pointer, typ *simrthook.Type) {
	if cs == nil {
		return
	}
	sw := cs.sendq.Claim(nil)
	if sw == nil {
		return
	}
	w := waiterOf(sw)
	if !typ.TrySend(ch, w.box) {
		panic("plaingo: no room for a parked sender's value after a receive")
	}
	complete(w)
}

// trySend is the send of v on ch if it can complete now.
func (s *sim) trySend(ch, v unsafe.Pointer, typ *simrthook.Type, own *core.Selection) bool {
	cs := s.chans[ch]
	if handTo(cs, v, typ, own) {
		s.release(cs)
		return true
	}
	return typ.TrySend(ch, v) // panics if ch is closed
}

// tryRecv is the receive from ch into v if it can complete now.
func (s *sim) tryRecv(ch, v unsafe.Pointer, typ *simrthook.Type, own *core.Selection) (done, ok bool) {
	cs := s.chans[ch]
	if done, ok = typ.TryRecv(ch, v); done {
		if ok {
			refill(cs, ch, typ)
			if cs != nil {
				s.release(cs)
			}
		}
		return true, ok
	}
	if takeFrom(cs, v, typ, own) {
		s.release(cs)
		return true, true
	}
	return false, false
}

// Send implements simrthook.Chans.
func (s *sim) Send(ch, v unsafe.Pointer, typ *simrthook.Type) {
	t := s.task()
	t.Point()
	for !s.trySend(ch, v, typ, nil) {
		if s.park(t, ch, v, typ, true) {
			return
		}
	}
}

// Recv implements simrthook.Chans.
func (s *sim) Recv(ch, v unsafe.Pointer, typ *simrthook.Type) bool {
	t := s.task()
	t.Point()
	for {
		if done, ok := s.tryRecv(ch, v, typ, nil); done {
			return ok
		}
		if s.park(t, ch, v, typ, false) {
			return true
		}
	}
}

// park queues t as a sender of the value at v (send) or a receiver into v
// on ch and parks until a partner completes it (true) or it is notified
// to look again (false). If the task unwinds meanwhile, its waiter is
// withdrawn.
func (s *sim) park(t *core.Task, ch, v unsafe.Pointer, typ *simrthook.Type, send bool) bool {
	cs := s.state(ch)
	w := s.getWaiter(t, cs, typ, nil)
	w.send = send
	w.at.capture(s, 1)
	q := &cs.recvq
	if send {
		typ.Move(w.box, v)
		q = &cs.sendq
	}
	q.Push(&w.Waiter)
	returned := false
	defer func() { s.unpark(w, q, ch, v, returned) }()
	t.ParkOn(w)
	returned = true
	return w.Done.Load()
}

// unpark ends the wait of w on q: a received value goes to v, an unsent
// one back to v. A task that unwinds (returned false: aborted at its park)
// after a sender handed it a value gives the value on, to the next parked
// receiver or into the buffer, as simrt.Chan does; on an unbuffered
// channel with nobody else waiting it is lost with the receiver, whose
// sender has already returned.
func (s *sim) unpark(w *waiter, q *core.WaitQueue, ch, v unsafe.Pointer, returned bool) {
	cs := w.cs
	q.Remove(&w.Waiter)
	done := w.Done.Load()
	switch {
	case done && !w.send && !returned:
		if !handTo(cs, w.box, &w.typ, nil) {
			giveBack(ch, w)
		}
		w.typ.Move(v, w.box) // clears the box if the value stayed
	case done && !w.send, !done && w.send:
		w.typ.Move(v, w.box)
	}
	s.release(cs)
	s.putWaiter(w)
}

// Close implements simrthook.Chans.
func (s *sim) Close(ch unsafe.Pointer, typ *simrthook.Type) {
	t := s.task()
	typ.Close(ch) // panics as Go does: closed twice
	if cs := s.chans[ch]; cs != nil {
		cs.recvq.NotifyAll()
		cs.sendq.NotifyAll()
		s.release(cs)
	}
	t.Point()
}

// giveBack puts the value of w into ch's buffer if there is room; on a
// closed or full channel it is dropped.
func giveBack(ch unsafe.Pointer, w *waiter) {
	defer func() { _ = recover() }() // closed meanwhile: the value is dropped
	w.typ.TrySend(ch, w.box)
}
