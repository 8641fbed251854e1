package simrt

import (
	"sync/atomic"
	"time"

	"github.com/simrt/simrt/internal/core"
)

// After is a Select case that completes once d of runtime time has passed,
// counted from the moment Select first looks at it, and then calls f, which
// may be nil. d <= 0 completes at once. It panics at the call if ctx is nil.
func After(ctx Caller, d time.Duration, f func()) Case {
	mustContext(ctx == nil, "After")
	return &primCase[afterState, func()]{p: afterWait{}, f: f, s: afterState{rt: ctx, d: d}}
}

// afterWait is the waitable of After's cases: each case keeps its own
// timer, in its afterState.
type afterWait struct{}

// afterState is the timer of one After case.
type afterState struct {
	rt      Caller
	d       time.Duration
	fired   atomic.Bool
	mu      core.Lock
	w       *core.Waiter
	started bool
	timer   core.Timer
}

func (afterWait) armCase(c *afterState, w *core.Waiter, _ *core.Selection) bool {
	if c.d <= 0 || c.fired.Load() {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.Bind(w.Task)
	c.w = w
	if !c.started {
		c.started = true
		c.timer = c.rt.AfterFunc(c.d, c.onTimer)
	}
	return false
}

func (c *afterState) onTimer() {
	c.fired.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w != nil {
		c.w.MarkNotified()
		c.w.Task.Unpark()
	}
}

func (afterWait) disarmCase(c *afterState, _ *core.Waiter) bool {
	c.mu.Lock()
	c.w = nil
	c.mu.Unlock()
	return false
}

func (afterWait) fireCase(_ *afterState, f func()) {
	if f != nil {
		f()
	}
}

func (afterWait) describeCase(c *afterState) string { return "after " + c.d.String() }

func (afterWait) releaseCase(c *afterState) {
	if c.timer != nil {
		c.timer.Stop()
	}
}

// Timeout runs f on the calling task and returns its error, unless f is
// still parked when d of runtime time has passed: then f is unwound (its
// deferred calls run, and a network half it was using is poisoned) and
// Timeout returns ErrTimeout. If f finishes at the very moment the time
// runs out, f wins (a tie only a simulation can produce: its clock has
// instants to share). A d <= 0 has run out before f starts: f runs until
// it first parks, and there it is unwound, on every runtime (a function
// that never parks returns its own result). In the simulator the time
// runs out at its instant, not at the end of the Cycle it falls in: a
// deadline that passes strictly before what f waits for happens (a
// Sleep's end, bytes arriving) unwinds f, as in production, even when the
// clock reaches both in one step. Timeouts nest; the one whose time ran
// out is the one that returns ErrTimeout. A context made by GoContext
// inside f reports the deadline, and is cancelled when the time runs out
// or Timeout returns. Timeout panics at the call if ctx or f is nil.
func Timeout(ctx Caller, d time.Duration, f func() error) (err error) {
	mustContext(ctx == nil, "Timeout")
	mustFunc(f == nil, "Timeout")
	t := ctx.CurrentTask()
	sc := &timeoutScope{}
	if outer := t.InnermostDeadline(); outer != nil {
		sc.parent, _ = outer.Ext.(*timeoutScope)
	}
	if c, ok := ctx.(Clock); ok {
		sc.at, sc.hasAt = c.Now().Add(d), true
		if p := sc.parent; p != nil && p.hasAt && p.at.Before(sc.at) {
			sc.at = p.at
		}
	}
	dl := t.PushDeadline()
	dl.Ext, sc.dl = sc, dl
	var timer core.Timer
	if d > 0 {
		timer = ctx.AfterFunc(d, sc.expire)
	} else {
		sc.expireAtCall()
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		t.PopDeadline(dl)
		sc.end()
		if r := recover(); r != nil {
			if got, ok := r.(*core.Deadline); ok && got == dl {
				err = ErrTimeout
				return
			}
			panic(r)
		}
	}()
	return f()
}
