package simrt

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/simrt/simrt/internal/core"
)

// This file says, for failure reports, what a task parked on each
// primitive waits for (see core.Blocker). A primitive hands the runtime a
// view of itself when it parks (one store); the text is made only when the
// simulator reports a run that stalled or timed out.

// callerPC returns the program counter of the call to the function that
// calls callerPC: where a channel is made (kept in Chan.site), so that a
// report can name a channel by its creation site. It costs a short stack walk
// (about 250 ns), paid once per channel, never per operation.
func callerPC() uintptr {
	var pc [1]uintptr
	if runtime.Callers(3, pc[:]) == 0 {
		return 0
	}
	return pc[0]
}

// siteOf renders pc as "file.go:line", or "" when it is unknown.
func siteOf(pc uintptr) string {
	if pc == 0 {
		return ""
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	if f.File == "" {
		return ""
	}
	return filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
}

// describe names the channel for a report: "chan made at node.go:140".
func (c *Chan[T]) describe() string {
	var b strings.Builder
	if c.unbuffered {
		b.WriteString("unbuffered ")
	}
	b.WriteString("chan")
	if site := siteOf(c.site); site != "" {
		b.WriteString(" made at ")
		b.WriteString(site)
	}
	switch {
	case c.unbuffered:
	case c.limit > 0:
		b.WriteString(" (capacity ")
		b.WriteString(strconv.Itoa(c.limit))
		b.WriteString(")")
	default:
		b.WriteString(" (unbounded)")
	}
	return b.String()
}

// chanRecv is a channel seen as the wait of a receiver.
type chanRecv[T any] Chan[T]

// BlockedOn implements core.Blocker.
func (c *chanRecv[T]) BlockedOn() string {
	if c.ticker { // the channel is the Ticker's own: name the Ticker
		if site := siteOf(c.site); site != "" {
			return "Recv on a simrt.Ticker made at " + site
		}
		return "Recv on a simrt.Ticker"
	}
	return "receive on " + (*Chan[T])(c).describe()
}

// chanSend is a channel seen as the wait of a sender.
type chanSend[T any] Chan[T]

// BlockedOn implements core.Blocker: "send on chan made at node.go:140
// (capacity 4), full", or, for a channel that has room, how much it holds:
// "send on chan made at node.go:140 (capacity 4), 1 queued, has room".
// A sender parked while its channel has room was not woken when a slot
// freed (a lost wake-up), so the report must not call the channel full.
func (c *chanSend[T]) BlockedOn() string {
	ch := (*Chan[T])(c)
	if c.unbuffered { // unbuffered: it waits for a receiver, not for room
		return "send on " + ch.describe()
	}
	if ch.full() {
		return "send on " + ch.describe() + ", full"
	}
	return "send on " + ch.describe() + ", " + strconv.Itoa(c.n) + " queued, has room"
}

// Waits that need no more than their kind.
const (
	signalWait  = core.WaitText("Wait on a simrt.Signal")
	oneshotWait = core.WaitText("Recv on a simrt.Oneshot")
	onceWait    = core.WaitText("Do of a simrt.Once, waiting for a concurrent Do to end")
	contextWait = core.WaitText("Wait on a simrt.GoContext, until it is cancelled")
)

// mutexLockWait is a Mutex seen as the wait of a task in Lock.
type mutexLockWait Mutex

// BlockedOn implements core.Blocker: `Lock of a simrt.Mutex held by task
// "worker" (#3)`.
func (m *mutexLockWait) BlockedOn() string {
	switch {
	case !m.locked: // free again, and the waiter not yet run
		return "Lock of a simrt.Mutex"
	case m.holder == nil:
		return "Lock of a simrt.Mutex taken with TryLock (its holder is unknown)"
	}
	if d := m.holder.Describe(); d != "" {
		return "Lock of a simrt.Mutex held by " + d
	}
	return "Lock of a simrt.Mutex"
}

// waitGroupWait is a WaitGroup seen as the wait of a task in Wait.
type waitGroupWait WaitGroup

// BlockedOn implements core.Blocker: "Wait of a simrt.WaitGroup (counter 2)".
func (wg *waitGroupWait) BlockedOn() string {
	return "Wait of a simrt.WaitGroup (counter " + strconv.Itoa(wg.n) + ")"
}

// rwReadWait and rwWriteWait are an RWMutex seen as the wait of a task in
// RLock and in Lock.
type (
	rwReadWait  RWMutex
	rwWriteWait RWMutex
)

// BlockedOn implements core.Blocker: "RLock of a simrt.RWMutex (writer waiting)".
func (m *rwReadWait) BlockedOn() string {
	return "RLock of a simrt.RWMutex" + (*RWMutex)(m).holders(true)
}

// BlockedOn implements core.Blocker: "Lock of a simrt.RWMutex (2 readers)".
func (m *rwWriteWait) BlockedOn() string {
	return "Lock of a simrt.RWMutex" + (*RWMutex)(m).holders(false)
}

// holders says what holds m, and for a reader (forReader) whether a writer
// waits and so holds it back: " (writer)", " (2 readers, writer waiting)";
// "" when nothing does any more (the waiter has been handed the lock and
// has not run yet).
func (m *RWMutex) holders(forReader bool) string {
	var parts []string
	switch {
	case m.writer && m.holder != nil && m.holder.Describe() != "":
		parts = append(parts, "writer "+m.holder.Describe())
	case m.writer:
		parts = append(parts, "writer")
	case m.readers == 1:
		parts = append(parts, "1 reader")
	case m.readers > 1:
		parts = append(parts, strconv.Itoa(m.readers)+" readers")
	}
	if forReader && !m.wq.Empty() {
		parts = append(parts, "writer waiting")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// awaitWait is a handle seen as the wait of a task awaiting it.
type awaitWait[T any] Handle[T]

// BlockedOn implements core.Blocker.
func (h *awaitWait[T]) BlockedOn() string { return "Await " + (*Handle[T])(h).describe() }

// describe names the handle's task, if its runtime can.
func (h *Handle[T]) describe() string {
	if n, ok := h.abort.(core.TaskNamer); ok {
		return "task " + strconv.Quote(n.TaskName())
	}
	if h.state&handleTask != 0 {
		return "a task"
	}
	return "a completion"
}

// selectWait is the state of one Select: its selection, and a copy of its
// cases for a report (a copy, so that the caller's variadic slice does not
// escape). Up to three cases live inline, so that such a Select allocates
// once for it. The waiters are in the cases (see primCase).
type selectWait struct {
	sel        core.Selection // shared with partners that may complete a case in place
	cases      []Case
	smallCases [3]Case
}

func newSelectWait(cases []Case) *selectWait {
	s := &selectWait{}
	if len(cases) <= len(s.smallCases) {
		s.cases = append(s.smallCases[:0], cases...)
		return s
	}
	s.cases = append([]Case(nil), cases...)
	return s
}

// BlockedOn implements core.Blocker: "Select on: receive on chan ...; after 5s".
func (s *selectWait) BlockedOn() string {
	if len(s.cases) == 0 {
		return "Select with no cases (until aborted)"
	}
	var b strings.Builder
	b.WriteString("Select on: ")
	for i, c := range s.cases {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.blockedOn())
	}
	return b.String()
}
