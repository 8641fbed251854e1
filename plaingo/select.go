//go:build simrt_plain

package plaingo

import (
	"simrthook"

	"github.com/simrt/simrt/internal/core"
)

// selectState is the waiters of one parked Select, one per case with a
// channel, sharing one selection.
type selectState struct {
	sel     core.Selection
	waiters []*waiter
	order   []int
	at      stack
}

// BlockedOn implements core.Blocker.
func (st *selectState) BlockedOn() string {
	started := ""
	if len(st.waiters) > 0 {
		started = st.waiters[0].started()
	}
	return "select " + st.at.where() + started
}

// Select implements simrthook.Chans: the cases are tried in an order drawn
// from the run's decisions, as Go's runtime tries them in a random order;
// with none ready, default (-1) is taken if there is one, or the task parks
// on every case's channel until a partner completes one of them or a close
// makes it look again.
func (s *sim) Select(cases []simrthook.Case, block bool) (int, bool) {
	t := s.task()
	t.Point()
	st := s.getSelect()
	defer s.putSelect(st)
	order := st.order[:0]
	for i := range cases {
		if cases[i].Ch != nil {
			order = append(order, i)
		}
	}
	for i := len(order) - 1; i > 0; i-- { // Fisher–Yates over the run's draws
		j := t.Choose(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	st.order = order
	for {
		if i, ok, done := s.trySelect(cases, order); done {
			return i, ok
		}
		if !block {
			return -1, false
		}
		if len(order) == 0 {
			s.Block("select with only nil channels")
		}
		if i, ok, done := s.parkSelect(t, st, cases, order); done {
			return i, ok
		}
	}
}

// trySelect completes the first case, in order, that can proceed now.
func (s *sim) trySelect(cases []simrthook.Case, order []int) (int, bool, bool) {
	for _, i := range order {
		c := &cases[i]
		if c.Send {
			if s.trySend(c.Ch, c.V, &c.T, nil) {
				return i, false, true
			}
			continue
		}
		if done, ok := s.tryRecv(c.Ch, c.V, &c.T, nil); done {
			return i, ok, true
		}
	}
	return 0, false, false
}

// parkSelect queues a waiter on every case and parks until a partner
// completes one (done) or the task is notified to look again.
func (s *sim) parkSelect(t *core.Task, st *selectState, cases []simrthook.Case, order []int) (chosen int, ok, done bool) {
	st.sel.Arm()
	st.at.capture(s, 1)
	for _, i := range order {
		c := &cases[i]
		cs := s.state(c.Ch)
		w := s.getWaiter(t, cs, &c.T, &st.sel)
		w.index, w.send = i, c.Send
		q := &cs.recvq
		if c.Send {
			c.T.Move(w.box, c.V)
			q = &cs.sendq
		}
		q.Push(&w.Waiter)
		st.waiters = append(st.waiters, w)
	}
	st.sel.Wait()
	returned := false
	defer func() {
		if !returned {
			st.sel.Close()
		}
		chosen, ok, done = s.unparkSelect(st, cases, returned)
	}()
	t.ParkOn(st)
	returned = true
	st.sel.Reclaim()
	return
}

// unparkSelect withdraws every waiter of st; a completed one gives the
// case chosen.
func (s *sim) unparkSelect(st *selectState, cases []simrthook.Case, returned bool) (chosen int, ok, done bool) {
	for _, w := range st.waiters {
		c := &cases[w.index]
		q := &w.cs.recvq
		if w.send {
			q = &w.cs.sendq
		}
		q.Remove(&w.Waiter)
		switch wdone := w.Done.Load(); {
		case wdone && !w.send:
			if !returned && !handTo(w.cs, w.box, &w.typ, nil) {
				giveBack(w.cs.ch, w)
			}
			w.typ.Move(c.V, w.box)
			chosen, ok, done = w.index, true, true
		case wdone:
			chosen, done = w.index, true
		case w.send:
			w.typ.Move(c.V, w.box)
		}
		s.release(w.cs)
		s.putWaiter(w)
	}
	clear(st.waiters)
	st.waiters = st.waiters[:0]
	return chosen, ok, done
}

func (s *sim) getSelect() *selectState {
	if n := len(s.selects); n > 0 {
		st := s.selects[n-1]
		s.selects = s.selects[:n-1]
		return st
	}
	return new(selectState)
}

func (s *sim) putSelect(st *selectState) { s.selects = append(s.selects, st) }
