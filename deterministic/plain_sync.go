package deterministic

import (
	"github.com/simrt/simrt/internal/plainsim"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/simrt/simrt/internal/core"
)

// This file is the simulator's side of plain Go's sync package: the
// semaphores and notify lists the standard library's sync.Mutex, RWMutex,
// WaitGroup and Cond sleep on (runtime_Semacquire*, runtime_Semrelease,
// runtime_notifyList* in Go 1.26), kept per simulation and keyed by the
// address the standard library passes. The overlaid standard library reaches
// them through the plain-Go hook (docs/PLAIN-GO.md); a task parks on them as
// on any simrt primitive, so the stall report names what it waits on.

// plainState is one simulation's plain-Go tables. The maps are only ever
// looked up by key, never ranged over, so their order cannot leak into a
// run.
type plainState struct {
	// ctx is the context the run's plain timers spawn their tasks below
	// (see plainOf).
	ctx   *Context
	semas map[*uint32]*plainSema
	lists map[unsafe.Pointer]*notifyList
	// timers maps a plain time.Timer (its address) to its simulated timer
	// (plain_time.go).
	timers map[unsafe.Pointer]*plainTimer
	// waitGroupCount, when set, reads the counter of the WaitGroup whose
	// semaphore is at the given address, for the stall report. The
	// overlaid sync package supplies it (it knows WaitGroup's layout).
	waitGroupCount func(sema *uint32) int
	spin           spinState // TryLock spins (spinPoint)
	// holders maps a locked sync.Mutex (the key the overlaid sync package
	// passes) to the task that locked it, for the stall report.
	holders map[any]*task
}

// plainSema is the wait queue of one semaphore address.
type plainSema struct {
	rt   *runtime
	addr *uint32
	kind plainsim.SemaKind // of the latest waiter, for the report
	lock any               // the Mutex of a plainsim.SemaMutex waiter, for its holder (nil: unknown)
	q    core.WaitQueue
}

// BlockedOn implements core.Blocker.
func (s *plainSema) BlockedOn() string {
	if s.kind == plainsim.SemaWaitGroup && s.rt.plain.waitGroupCount != nil {
		return s.kind.String() + " (counter " + strconv.Itoa(s.rt.plain.waitGroupCount(s.addr)) + ")"
	}
	if s.kind == plainsim.SemaMutex && s.lock != nil {
		if h := s.rt.plain.holders[s.lock]; h != nil {
			name := strconv.Quote(h.name)
			if h.name == "" {
				name = "<root>"
			}
			if h.finished {
				return s.kind.String() + " (held by task " + name + ", which has ended)"
			}
			return s.kind.String() + " (held by task " + name + ")"
		}
	}
	return s.kind.String()
}

// mutexLocked records that the running task holds the sync.Mutex lock.
func (rt *runtime) mutexLocked(lock any) {
	t := rt.currentTask()
	if rt.plain.holders == nil {
		rt.plain.holders = make(map[any]*task)
	}
	rt.plain.holders[lock] = t
}

// mutexUnlocked forgets the holder of lock.
func (rt *runtime) mutexUnlocked(lock any) {
	rt.check()
	delete(rt.plain.holders, lock)
}

// semaFor returns the wait queue of addr, made on first use.
func (rt *runtime) semaFor(addr *uint32) *plainSema {
	if s := rt.plain.semas[addr]; s != nil {
		return s
	}
	if rt.plain.semas == nil {
		rt.plain.semas = make(map[*uint32]*plainSema)
	}
	s := &plainSema{rt: rt, addr: addr}
	rt.plain.semas[addr] = s
	return s
}

// semacquire waits until *addr > 0 and decrements it, parking the running
// task meanwhile (the Go runtime's semacquire1). lifo queues the task at the
// front, as a Mutex waiter that has waited before is queued. A release
// grants the count to the first waiter directly (see semrelease), so
// waiters are served in queue order.
func (rt *runtime) semacquire(addr *uint32, kind plainsim.SemaKind, lifo bool, lock any) {
	t := rt.currentTask()
	for {
		v := atomic.LoadUint32(addr)
		if v == 0 {
			break
		}
		if atomic.CompareAndSwapUint32(addr, v, v-1) {
			return
		}
	}
	s := rt.semaFor(addr)
	s.kind, s.lock = kind, lock
	w := t.ct.Waiter()
	if lifo && !s.q.Empty() {
		s.q.PushFront(w)
	} else {
		s.q.Push(w)
	}
	granted := false
	defer func() {
		if granted {
			return
		}
		// Unwinding (an abort): leave the queue, and pass on a count
		// granted to this task after it was woken for the last time.
		s.q.Remove(w)
		if w.Notified {
			rt.semrelease(addr, false)
		}
		rt.dropSema(s)
	}()
	for !w.Notified {
		t.ct.ParkOn(s)
	}
	granted = true
	rt.dropSema(s)
}

// semrelease increments *addr and, if a task waits on it, grants it the
// count at once and wakes it (the Go runtime's semrelease1; the grant is
// what its handoff does, done always so that no other task can take the
// count first and the order stays the queue's).
func (rt *runtime) semrelease(addr *uint32, handoff bool) {
	rt.check()
	atomic.AddUint32(addr, 1)
	s := rt.plain.semas[addr]
	if s == nil || s.q.Empty() {
		return
	}
	atomic.AddUint32(addr, ^uint32(0))
	s.q.NotifyOne()
	if handoff { // the Go runtime yields to the waiter it handed the count to
		if t := rt.current; t != nil {
			t.ct.Point()
		}
	}
}

// dropSema forgets s once nobody waits on it, so that the table holds only
// semaphores with waiters.
func (rt *runtime) dropSema(s *plainSema) {
	if s.q.Empty() && rt.plain.semas[s.addr] == s {
		delete(rt.plain.semas, s.addr)
	}
}

// notifyList is sync.Cond's ticket list (the Go runtime's notifyList):
// notifyListAdd hands out tickets in order, a notification covers the
// oldest ticket not yet notified (NotifyOne) or all of them (NotifyAll),
// and a waiter whose ticket is covered does not park, or wakes.
type notifyList struct {
	wait    uint32 // the next ticket
	notify  uint32 // tickets below this one are notified
	waiters []notifyWaiter
}

type notifyWaiter struct {
	ticket uint32
	w      *core.Waiter
}

// BlockedOn implements core.Blocker.
func (l *notifyList) BlockedOn() string { return "sync.Cond.Wait" }

// listFor returns the notify list at l, made on first use. Lists are kept
// for the whole run: a list forgotten between a ticket and its wait would
// restart its counters and lose the notification.
func (rt *runtime) listFor(l unsafe.Pointer) *notifyList {
	if n := rt.plain.lists[l]; n != nil {
		return n
	}
	if rt.plain.lists == nil {
		rt.plain.lists = make(map[unsafe.Pointer]*notifyList)
	}
	n := new(notifyList)
	rt.plain.lists[l] = n
	return n
}

// notifyListAdd returns the next ticket of l (sync.Cond.Wait takes it
// before it unlocks the Cond's Locker).
func (rt *runtime) notifyListAdd(l unsafe.Pointer) uint32 {
	rt.check()
	n := rt.listFor(l)
	t := n.wait
	n.wait++
	return t
}

// less reports whether ticket a comes before b, wrapping as the Go
// runtime's tickets do.
func less(a, b uint32) bool { return int32(a-b) < 0 }

// notifyListWait parks the running task until ticket is notified.
func (rt *runtime) notifyListWait(l unsafe.Pointer, ticket uint32) {
	t := rt.currentTask()
	n := rt.listFor(l)
	if less(ticket, n.notify) {
		return // notified before it got here
	}
	w := t.ct.Waiter()
	n.waiters = append(n.waiters, notifyWaiter{ticket, w})
	defer func() {
		// Leave the list, whether notified or unwinding. A notification an
		// unwinding waiter received is spent, as it is when a goroutine
		// waiting on a Cond exits: Cond promises nothing more.
		for i := range n.waiters {
			if n.waiters[i].w == w {
				n.waiters = append(n.waiters[:i], n.waiters[i+1:]...)
				break
			}
		}
	}()
	for !w.Notified {
		t.ct.ParkOn(n)
	}
}

// notifyListNotifyOne notifies the oldest ticket not yet notified, waking
// its waiter if it waits already.
func (rt *runtime) notifyListNotifyOne(l unsafe.Pointer) {
	rt.check()
	n := rt.listFor(l)
	if n.wait == n.notify {
		return
	}
	ticket := n.notify
	n.notify++
	for _, nw := range n.waiters {
		if nw.ticket == ticket {
			nw.w.MarkNotified()
			nw.w.Task.Unpark()
			return
		}
	}
}

// notifyListNotifyAll notifies every ticket handed out, waking each waiter.
func (rt *runtime) notifyListNotifyAll(l unsafe.Pointer) {
	rt.check()
	n := rt.listFor(l)
	n.notify = n.wait
	for _, nw := range n.waiters {
		if !nw.w.Notified {
			nw.w.MarkNotified()
			nw.w.Task.Unpark()
		}
	}
}

// spinYield is how many TryLocks in a row one task may make on one lock
// before it is made to yield (see spinPoint).
const spinYield = 64

// spinState is the latest TryLock's task and lock and how many in a row
// that task made on it.
type spinState struct {
	task *task
	key  any
	n    int
}

// spinPoint is a TryLock of plain Go's sync.Mutex or RWMutex (key, the
// lock): a scheduling point, and, since a task that spins on TryLock never
// parks, a forced yield after spinYield TryLocks in a row on one lock, so
// that the holder gets to run whatever the scheduler (PCT, NoYield) would
// choose. Time still passes for a spin that keeps every task ready: see
// Config.SpinIterations.
func (rt *runtime) spinPoint(key any) {
	t := rt.currentTask()
	s := &rt.plain.spin
	if s.task != t || s.key != key {
		*s = spinState{task: t, key: key}
	}
	s.n++
	if s.n >= spinYield {
		s.n = 0
		t.Yield()
		return
	}
	t.ct.Point()
}
