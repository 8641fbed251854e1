package simrt

import (
	"context"
	"time"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// TaskContext is a context.Context for code that takes one (a client
// library, a handler signature), tied to a task of a simrt runtime. Make one
// with GoContext. It is cancelled, and its Done channel closed:
//
//   - with context.Canceled by its cancel function;
//   - with context.Canceled when the task whose Context made it ends or is
//     aborted (it follows the supervision tree, like a task spawned from
//     that Context);
//   - with context.DeadlineExceeded when a Timeout around the call to
//     GoContext runs out, and with context.Canceled when that Timeout
//     returns first. Deadline reports when the innermost such Timeout runs
//     out, in runtime time: simulated in the simulator.
//
// # Limits
//
// A task must not block on the Done channel natively (<-ctx.Done(), or a
// select on it): in the simulator that blocks the thread every task runs
// on, and the simulation freezes until its watchdog fires. Use Wait or
// OnDone in a Select instead; Err and a select with a default case are fine.
// Derive contexts with context.WithCancel and context.WithValue, which
// TaskContext cancels at once through its AfterFunc method; not with
// context.WithTimeout or context.WithDeadline, which count wall-clock time
// on timers of their own (use Timeout around GoContext). Functions given to
// context.AfterFunc run on native goroutines, outside the simulator. Code
// that starts goroutines of its own (net/http, gRPC) does not run under the
// simulator at all, context or not.
type TaskContext struct {
	mu          core.Lock
	err         error
	done        chan struct{}
	deadline    time.Time
	hasDeadline bool
	q           core.WaitQueue
	hooks       hookList
}

var _ context.Context = (*TaskContext)(nil)

// GoContext returns a context.Context tied to the calling task (see
// TaskContext), and the function that cancels it. Call it from the task
// that owns ctx. As with context.WithCancel, call cancel when the work the
// context covers is done; it may be called more than once, from any task.
//
// GoContext spawns a small task below ctx that follows the calling task's
// lifetime, so a GoContext counts as a spawn (and shows as a task named
// after ctx with "_gocontext" appended) until the context is cancelled.
// GoContext panics at the call if ctx is nil.
func GoContext(ctx Context) (*TaskContext, context.CancelFunc) {
	mustContext(ctx == nil, "GoContext")
	t := ctx.CurrentTask()
	c := &TaskContext{done: make(chan struct{})}
	var scope *timeoutScope
	if dl := t.InnermostDeadline(); dl != nil {
		scope, _ = dl.Ext.(*timeoutScope)
	}
	if scope != nil && scope.hasAt {
		c.deadline, c.hasDeadline = scope.at, true
	}
	for s := scope; s != nil; s = s.parent {
		s.bind(c)
	}
	ctx.Child("gocontext").SpawnTask(rtapi.TaskFuncs{
		RunFunc:  func(ctx rtapi.Plumbing) { c.Wait(ctx) },
		DoneFunc: func(error) { c.cancel(context.Canceled) }, // at once if aborted, or never started
	})
	return c, func() { c.cancel(context.Canceled) }
}

// Deadline implements context.Context: when the innermost Timeout around
// GoContext runs out, in runtime time; ok is false outside any Timeout.
func (c *TaskContext) Deadline() (deadline time.Time, ok bool) {
	return c.deadline, c.hasDeadline
}

// Done implements context.Context. Do not block on it natively inside a
// task; see TaskContext.
func (c *TaskContext) Done() <-chan struct{} { return c.done }

// Err implements context.Context: nil until the context is cancelled, then
// context.Canceled or context.DeadlineExceeded.
func (c *TaskContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value implements context.Context; a TaskContext carries no values (wrap
// it with context.WithValue).
func (c *TaskContext) Value(key any) any { return nil }

// String returns a description of the context for debugging.
func (c *TaskContext) String() string { return "simrt.GoContext" }

// AfterFunc arranges for f to be called once the context is cancelled, and
// at once if it already is. f runs in the task or timer that cancels it,
// before the cancellation returns, so it must not block. The stop function
// unregisters f and reports whether it did so before f was called. The
// context package uses this method to cancel contexts derived with
// context.WithCancel at the same instant, without a goroutine of its own.
func (c *TaskContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		f()
		return func() bool { return false }
	}
	h := &hook{f: f}
	c.hooks.push(h)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.hooks.remove(h)
	}
}

// Wait parks until the context is cancelled and returns Err.
// It panics at the call if ctx is nil.
func (c *TaskContext) Wait(ctx Caller) error {
	mustContext(ctx == nil, "TaskContext.Wait")
	c.mu.Lock()
	if c.err == nil {
		waitUntilOn(ctx, &c.mu, &c.q, contextWait, nil, func() bool { return c.err != nil })
	}
	err := c.err
	c.mu.Unlock()
	return err
}

// OnDone is a Select case that completes once the context is cancelled and
// passes Err to f, which may be nil. It is the Select form of
// <-ctx.Done().
func (c *TaskContext) OnDone(f func(err error)) Case {
	return &primCase[error, func(error)]{p: c, f: f}
}

// cancel cancels the context with err unless it already is: it closes
// Done, wakes the tasks waiting and calls the AfterFunc functions, outside
// the lock. Safe from any task or timer.
func (c *TaskContext) cancel(err error) {
	var buf [4]*core.Task
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.done)
	woken := c.q.TakeAll(buf[:0])
	hooks := c.hooks.takeAll()
	c.mu.Unlock()
	for _, t := range woken {
		t.Unpark()
	}
	for _, h := range hooks {
		h.f()
	}
}

func (c *TaskContext) armCase(err *error, w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&c.mu, &c.q, w, func() bool {
		*err = c.err
		return c.err != nil
	})
}

func (c *TaskContext) disarmCase(_ *error, w *core.Waiter) bool {
	return disarmNotified(&c.mu, &c.q, w, nil)
}

func (c *TaskContext) fireCase(err *error, f func(error)) {
	if f != nil {
		f(*err)
	}
}

func (c *TaskContext) describeCase(*error) string { return contextWait.BlockedOn() }

// hook is one AfterFunc registration.
type hook struct {
	f          func()
	prev, next *hook
	in         bool
}

// hookList is the AfterFunc registrations of a context, in order.
type hookList struct{ head, tail *hook }

func (l *hookList) push(h *hook) {
	h.prev, h.in = l.tail, true
	if l.tail != nil {
		l.tail.next = h
	} else {
		l.head = h
	}
	l.tail = h
}

// remove takes h off the list and reports whether it was there.
func (l *hookList) remove(h *hook) bool {
	if !h.in {
		return false
	}
	if h.prev != nil {
		h.prev.next = h.next
	} else {
		l.head = h.next
	}
	if h.next != nil {
		h.next.prev = h.prev
	} else {
		l.tail = h.prev
	}
	h.prev, h.next, h.in = nil, nil, false
	return true
}

// takeAll empties the list and returns its hooks in order.
func (l *hookList) takeAll() []*hook {
	var hs []*hook
	for h := l.head; h != nil; h = l.head {
		l.remove(h)
		hs = append(hs, h)
	}
	return hs
}

// timeoutScope is what a Timeout keeps beside its core.Deadline: when it
// runs out in runtime time, and the contexts made under it by GoContext,
// to cancel when it runs out or returns. A context is bound to every
// Timeout around it, so whichever runs out first cancels it.
type timeoutScope struct {
	dl     *core.Deadline
	parent *timeoutScope // the Timeout around this one, if any
	at     time.Time     // min(this one's, parent's) deadline, if hasAt
	hasAt  bool
	mu     core.Lock
	state  uint8 // scopeActive, scopeExpired or scopeEnded
	ctxs   []*TaskContext
}

const (
	scopeActive uint8 = iota
	scopeExpired
	scopeEnded
)

// bind adds c to the contexts the scope cancels; a scope that has already
// expired cancels it at once.
func (s *timeoutScope) bind(c *TaskContext) {
	s.mu.Lock()
	if s.state == scopeActive {
		s.ctxs = append(s.ctxs, c)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	c.cancel(context.DeadlineExceeded)
}

// expire is the Timeout's timer: it cancels the contexts bound to the
// scope with DeadlineExceeded, then expires the deadline, which unwinds
// the timed function.
func (s *timeoutScope) expire() {
	s.cancelBound()
	s.dl.Expire()
}

// expireAtCall is expire for a Timeout whose time has run out before f
// starts (d <= 0), called from the task itself.
func (s *timeoutScope) expireAtCall() {
	s.cancelBound()
	s.dl.ExpireOwn()
}

// cancelBound marks the scope expired and cancels the contexts bound to
// it with DeadlineExceeded.
func (s *timeoutScope) cancelBound() {
	s.mu.Lock()
	if s.state == scopeActive {
		s.state = scopeExpired
	}
	ctxs := s.ctxs
	s.mu.Unlock()
	for _, c := range ctxs {
		c.cancel(context.DeadlineExceeded)
	}
}

// end runs as the Timeout returns: it cancels the contexts still bound
// with Canceled (DeadlineExceeded if the scope expired) and drops them.
func (s *timeoutScope) end() {
	s.mu.Lock()
	err := context.Canceled
	if s.state == scopeExpired {
		err = context.DeadlineExceeded
	}
	s.state = scopeEnded
	ctxs := s.ctxs
	s.ctxs = nil
	s.mu.Unlock()
	for _, c := range ctxs {
		c.cancel(err)
	}
}
