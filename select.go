package simrt

import (
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// Case is one branch of a Select. Cases are made by the primitives:
// Chan.OnRecv, Chan.OnSend (on any channel, unbuffered too),
// Oneshot.OnRecv, Signal.OnFire, StopSignal.OnStop, Handle.OnDone,
// Mutex.OnLock, WaitGroup.OnWait, Ticker.OnTick, TaskContext.OnDone and
// After.
type Case interface {
	// arm completes the case if it can and reports true; otherwise it queues
	// w to be notified when it might.
	arm(w *core.Waiter) bool
	// disarm takes w off the queue; a notification w received but will not
	// use is passed on to the next waiter.
	disarm(w *core.Waiter)
	// fire runs the case's callback after it completed, outside any lock.
	fire()
	// release frees what the case holds (a timer) once Select returns.
	release()
}

// Select parks until one of cases can complete, completes it, runs its
// callback and returns its index. When several cases are ready at once it
// takes one of them at random, as Go's select does; in the simulator the
// choice comes from the run's decision stream, so a seed gives the same
// choice every time (Config.BiasedSelect, or SelectBiased, keeps the
// earliest instead). A case that was not chosen consumes nothing: a value
// offered by a channel stays there. A parked Select with a case on an
// unbuffered channel is completed by the first partner to arrive there,
// whatever else became ready at the same time, since that partner has
// already taken or delivered the value. Select with no cases parks forever
// (until aborted).
func Select(ctx rtapi.Plumbing, cases ...Case) int {
	return selectCases(ctx, false, cases)
}

// SelectBiased is Select that, when several cases are ready at once, takes
// the earliest in the list (the reference runtime's select), for code that
// relies on the order of its cases.
func SelectBiased(ctx rtapi.Plumbing, cases ...Case) int {
	return selectCases(ctx, true, cases)
}

func selectCases(ctx rtapi.Plumbing, biased bool, cases []Case) int {
	t := ctx.CurrentTask()
	t.Point()
	defer func() {
		for _, c := range cases {
			c.release()
		}
	}()
	sw := newSelectWait(cases) // the waiters, and what a report says of the cases
	waiters := sw.waiters
	var sel *selection // shared with partners, if a case is on an unbuffered channel
	for _, c := range cases {
		if _, ok := c.(syncCase); ok {
			sel = new(selection)
			break
		}
	}
	var buf [8]int
	order := tryOrder(t, biased, len(cases), buf[:0])
	for {
		chosen, k := -1, 0
		for ; k < len(order); k++ {
			i := order[k]
			waiters[i] = core.Waiter{Task: t}
			if armCase(cases[i], &waiters[i], sel) {
				chosen = i
				break
			}
		}
		if chosen >= 0 {
			for _, i := range order[:k] {
				disarmCase(cases[i], &waiters[i])
			}
			cases[chosen].fire()
			return chosen
		}
		if sel != nil {
			sel.state.Store(selWaiting)
		}
		parkCases(t, cases, waiters, sel, sw)
		claimed := sel != nil && !sel.state.CompareAndSwap(selWaiting, selArming)
		won := -1
		for i, c := range cases {
			if disarmCase(c, &waiters[i]) {
				won = i
			}
		}
		if claimed {
			cases[won].fire()
			return won
		}
	}
}

// tryOrder returns the order in which a Select tries its n cases: the
// list's own when biased, otherwise a uniform permutation drawn through
// the task's scheduler (Fisher–Yates from the front, so that a scheduler
// that always chooses 0 keeps the list's order).
func tryOrder(t *core.Task, biased bool, n int, order []int) []int {
	for i := range n {
		order = append(order, i)
	}
	if biased {
		return order
	}
	for i := 0; i < n-1; i++ {
		j := i + t.Choose(n-i)
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// armCase arms c for a Select whose selection is sel.
func armCase(c Case, w *core.Waiter, sel *selection) bool {
	if sc, ok := c.(syncCase); ok {
		return sc.armSync(w, sel)
	}
	return c.arm(w)
}

// disarmCase disarms c and reports whether a partner completed it (only a
// case on an unbuffered channel can be completed by a partner).
func disarmCase(c Case, w *core.Waiter) bool {
	if sc, ok := c.(syncCase); ok {
		return sc.disarmSync()
	}
	c.disarm(w)
	return false
}

func parkCases(t *core.Task, cases []Case, waiters []core.Waiter, sel *selection, sw *selectWait) {
	ok := false
	defer func() {
		if !ok {
			if sel != nil { // unwinding: no partner may complete a case any more
				sel.state.Store(selDone)
			}
			for i, c := range cases {
				disarmCase(c, &waiters[i])
			}
		}
	}()
	t.ParkOn(sw)
	ok = true
}

// waiter returns the calling task's reusable waiter for a wait on a
// primitive guarded by mu, which the caller holds. It binds mu to the task
// (see core.Lock.Bind), so that in the simulator the lock stops locking.
func waiter(ctx rtapi.Plumbing, mu *core.Lock) *core.Waiter {
	w := ctx.CurrentTask().Waiter()
	mu.Bind(w.Task)
	return w
}

// waitUntil is waitUntilOn for a wait that does not describe itself.
func waitUntil(ctx rtapi.Plumbing, mu *core.Lock, q *core.WaitQueue, forward func(), attempt func() bool) {
	waitUntilOn(ctx, mu, q, nil, forward, attempt)
}

// waitUntilOn parks the calling task on q, the wait queue of a primitive
// guarded by mu, until attempt reports true. It is called with mu held and
// returns with mu held; attempt runs with mu held after every wake-up.
// on says what the task waits on, for failure reports (see core.Blocker;
// nil says nothing). forward passes on a wake-up the task did not use if
// the wait unwinds (see park).
func waitUntilOn(ctx rtapi.Plumbing, mu *core.Lock, q *core.WaitQueue, on core.Blocker, forward func(), attempt func() bool) {
	w := waiter(ctx, mu)
	for {
		q.Push(w)
		mu.Unlock()
		parkOn(w, mu, q, on, forward)
		mu.Lock()
		q.Remove(w)
		w.Notified = false
		if attempt() {
			return
		}
	}
}

// park is parkOn for a wait that does not describe itself.
func park(w *core.Waiter, mu *core.Lock, q *core.WaitQueue, forward func()) {
	parkOn(w, mu, q, nil, forward)
}

// parkOn parks w's task on on (see waitUntilOn); if the park unwinds
// (abort or Timeout), w is taken off q under mu and an unused notification
// is forwarded.
func parkOn(w *core.Waiter, mu *core.Lock, q *core.WaitQueue, on core.Blocker, forward func()) {
	ok := false
	defer func() {
		if !ok {
			mu.Lock()
			q.Remove(w)
			if w.Notified && forward != nil {
				forward()
			}
			mu.Unlock()
		}
	}()
	w.Task.ParkOn(on)
	ok = true
}

// Reschedule lets every other ready task run once before the caller goes on.
func Reschedule(ctx rtapi.Plumbing) {
	ctx.CurrentTask().Yield()
}
