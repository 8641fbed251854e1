package simrt

import (
	"github.com/simrt/simrt/internal/core"
)

// Case is one branch of a Select. Cases are made by the primitives:
// Chan.OnRecv, Chan.OnSend (on any channel, unbuffered too),
// Oneshot.OnRecv, Signal.OnFire, StopSignal.OnStop, Handle.OnDone,
// Mutex.OnLock, WaitGroup.OnWait, Ticker.OnTick, TaskContext.OnDone and
// After.
type Case interface {
	// arm completes the case if it can and reports true; otherwise it queues
	// the case's own waiter, reset as a waiter of t in sel, to be notified
	// when it might, or completed in place by a partner.
	arm(t *core.Task, sel *core.Selection) bool
	// disarm takes the case's waiter off its queue and reports whether a
	// partner completed the case in place; a notification the waiter
	// received but will not use is passed on to the next waiter.
	disarm() bool
	// fire runs the case's callback after it completed, outside any lock.
	fire()
	// undo gives back what a partner handed the case in place (a value
	// received) when the Select unwinds instead of taking it.
	undo()
	// release frees what the case holds (a timer) once Select returns.
	release()
	// blockedOn says what the case waits for, for failure reports.
	blockedOn() string
}

// waitable is what a primitive (or a named view of one, as chanRecv is of
// Chan) implements so that Select can wait on it; primCase is the one Case
// for all of them. S is the state of one case, kept in the case: what it
// offers (a value to send) and what it got. F is the type of the case's
// callback.
type waitable[S, F any] interface {
	// armCase completes the case if it can, storing the outcome in s, and
	// reports true; otherwise it queues w (see Case.arm).
	armCase(s *S, w *core.Waiter, sel *core.Selection) bool
	// disarmCase takes w off the queue (see Case.disarm).
	disarmCase(s *S, w *core.Waiter) bool
	// fireCase passes the outcome in s to f, unless f is nil.
	fireCase(s *S, f F)
	// describeCase says what the case waits for (see core.Blocker).
	describeCase(s *S) string
}

// releaser is a waitable whose cases hold something until Select returns.
type releaser[S any] interface {
	releaseCase(s *S)
}

// undoer is a waitable whose cases a partner completes by handing them
// something, which must be given back if the Select unwinds.
type undoer[S any] interface {
	undoCase(s *S)
}

// primCase is a Select case on the primitive p. It holds its own waiter,
// so that a Select allocates no waiters of its own. w and s come first and
// in this order: for a channel case, whose state begins with the value it
// offers or takes, w and that value are laid out as a syncWaiter (see
// syncOf and TestCaseWaiterLayout), so that a partner completes the case
// in place through w.
type primCase[S, F any] struct {
	w core.Waiter
	s S
	p waitable[S, F]
	f F
}

func (c *primCase[S, F]) arm(t *core.Task, sel *core.Selection) bool {
	c.w.Reset(t, sel)
	return c.p.armCase(&c.s, &c.w, sel)
}

func (c *primCase[S, F]) disarm() bool      { return c.p.disarmCase(&c.s, &c.w) }
func (c *primCase[S, F]) fire()             { c.p.fireCase(&c.s, c.f) }
func (c *primCase[S, F]) blockedOn() string { return c.p.describeCase(&c.s) }

func (c *primCase[S, F]) undo() {
	if u, ok := c.p.(undoer[S]); ok {
		u.undoCase(&c.s)
	}
}

func (c *primCase[S, F]) release() {
	if r, ok := c.p.(releaser[S]); ok {
		r.releaseCase(&c.s)
	}
}

// armNotified is the arm of a case that waits to be notified (most do): if
// ready, run with mu held, reports that it completes (and stores the
// outcome), it returns true; otherwise it queues w on q.
func armNotified(mu *core.Lock, q *core.WaitQueue, w *core.Waiter, ready func() bool) bool {
	mu.Lock()
	defer mu.Unlock()
	mu.Bind(w.Task)
	if ready() {
		return true
	}
	q.Push(w)
	return false
}

// disarmNotified is the disarm of a case that waits to be notified: it
// takes w off q and, if w was notified, calls forward (unless nil) to pass
// the notification on. It reports false: nobody completes such a case in
// place.
func disarmNotified(mu *core.Lock, q *core.WaitQueue, w *core.Waiter, forward func()) bool {
	mu.Lock()
	q.Withdraw(w, forward)
	mu.Unlock()
	return false
}

// Select parks until one of cases can complete, completes it, runs its
// callback and returns its index. When several cases are ready at once it
// takes one of them at random, as Go's select does; in the simulator the
// choice comes from the run's decision stream, so a seed gives the same
// choice every time (Config.Scheduling.BiasedSelect, or SelectBiased, keeps the
// earliest instead). A case that was not chosen consumes nothing: a value
// offered by a channel stays there. A parked Select is completed in place
// by the first partner to arrive at one of its channel cases (a sender to
// any channel it receives from, a receiver on an unbuffered channel it
// sends on), since that partner has already delivered or taken the value,
// unless another case woke it first: then partners pass it by until it has
// looked at its cases again, as in Go. Select with no cases parks forever
// (until aborted). A value a sender handed to a Select that is aborted at
// that moment goes back to the channel (see Chan). Select panics at the
// call, naming the case, if ctx or a case is nil (a case's callback may be
// nil).
func Select(ctx Caller, cases ...Case) int {
	mustContext(ctx == nil, "Select")
	mustCases("Select", cases)
	return selectCases(ctx, false, cases)
}

// SelectBiased is Select that, when several cases are ready at once, takes
// the earliest in the list (the reference runtime's select), for code that
// relies on the order of its cases. It panics as Select does.
func SelectBiased(ctx Caller, cases ...Case) int {
	mustContext(ctx == nil, "SelectBiased")
	mustCases("SelectBiased", cases)
	return selectCases(ctx, true, cases)
}

func selectCases(ctx Caller, biased bool, cases []Case) int {
	t := ctx.CurrentTask()
	t.Point()
	defer func() {
		for _, c := range cases {
			c.release()
		}
	}()
	sw := newSelectWait(cases) // the selection, and what a report says of the cases
	sel := &sw.sel
	var buf [8]int
	order := tryOrder(t, biased, len(cases), buf[:0])
	for {
		chosen, k := -1, 0
		for ; k < len(order); k++ {
			i := order[k]
			if cases[i].arm(t, sel) {
				chosen = i
				break
			}
		}
		if chosen >= 0 {
			for _, i := range order[:k] {
				cases[i].disarm()
			}
			cases[chosen].fire()
			return chosen
		}
		sel.Wait()
		parkCases(t, cases, sel, sw)
		claimed := sel.Reclaim()
		won := -1
		for i, c := range cases {
			if c.disarm() {
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

func parkCases(t *core.Task, cases []Case, sel *core.Selection, sw *selectWait) {
	ok := false
	defer func() {
		if ok {
			return
		}
		if !t.IsAborted() && sel.Reclaim() {
			// A Timeout ran out while a partner completed a case (between
			// sel.Wait and the park): the case has happened (a value
			// taken from a send case cannot be given back), so it wins
			// the tie and Select returns it; the Timeout's function
			// unwinds at its next park.
			if v := recover(); !isDeadline(v) {
				panic(v)
			}
			return
		}
		sel.Close() // unwinding: no partner may complete a case any more
		for _, c := range cases {
			if c.disarm() {
				c.undo()
			}
		}
	}()
	if h := beforePark; h != nil {
		h()
	}
	t.ParkOn(sw)
	ok = true
}

// isDeadline reports whether v, a value a park panicked with, is a
// Timeout's deadline (rather than an abort).
func isDeadline(v any) bool {
	_, ok := v.(*core.Deadline)
	return ok
}

// waitUntil is waitUntilOn for a wait that does not describe itself.
func waitUntil(ctx Caller, mu *core.Lock, q *core.WaitQueue, forward func(), attempt func() bool) {
	waitUntilOn(ctx, mu, q, nil, forward, attempt)
}

// waitUntilOn parks the calling task on q, the wait queue of a primitive
// guarded by mu, until attempt reports true. It is called with mu held and
// returns with mu held; attempt runs with mu held after every wake-up.
// on says what the task waits on, for failure reports (see core.Blocker;
// nil says nothing). forward passes on a wake-up the task did not use if
// the wait unwinds (see core.Wait).
func waitUntilOn(ctx Caller, mu *core.Lock, q *core.WaitQueue, on core.Blocker, forward func(), attempt func() bool) {
	w := ctx.CurrentTask().Waiter()
	for {
		core.Wait(mu, w, q, on, forward)
		if attempt() {
			return
		}
	}
}

// waiter returns the calling task's reusable waiter for a wait on a
// primitive guarded by mu, which the caller holds. It binds mu to the task
// (see core.Lock.Bind), so that in the simulator the lock stops locking.
func waiter(ctx Caller, mu *core.Lock) *core.Waiter {
	w := ctx.CurrentTask().Waiter()
	mu.Bind(w.Task)
	return w
}

// Reschedule lets every other ready task run once before the caller goes on.
// It panics at the call if ctx is nil.
func Reschedule(ctx Caller) {
	mustContext(ctx == nil, "Reschedule")
	ctx.CurrentTask().Yield()
}
