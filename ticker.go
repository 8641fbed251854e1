package simrt

import (
	"time"

	"github.com/simrt/simrt/internal/core"
)

// Ticker delivers ticks at regular intervals of runtime time, like
// time.Ticker: simulated in the simulator, the wall clock in production.
// Ticks come at start+d, start+2d, ... (start being when the ticker was
// made or last Reset), never drifting however late a tick is taken. It
// holds at most one tick: a receiver slower than d misses ticks, as with
// time.Ticker, and gets the oldest one still held. After Stop or Reset no
// tick from before is received (Go 1.23's rule).
//
// A ticker belongs to the task that made it: when that task ends, the
// ticker stops for good. Receive with Recv, or with OnTick in a Select.
// A running ticker is a pending timer, so a simulation with one never
// stalls: it runs until the ticker stops or the run's Timeout.
type Ticker struct {
	ctx   Context
	ticks *Chan[time.Time] // holds the one pending tick
	mu    core.Lock
	d     time.Duration
	start time.Time
	gen   uint64 // counts Stops and Resets: a timer set before is stale
	timer core.Timer
	dead  bool // the owning task has ended
}

// NewTicker returns a ticker that ticks every d of runtime time, starting
// one d from now. It panics if d <= 0. Call it from a task of ctx's
// runtime; the ticker stops when that task ends.
// It panics at the call if ctx is nil.
func NewTicker(ctx Context, d time.Duration) *Ticker {
	mustContext(ctx == nil, "NewTicker")
	if d <= 0 {
		panic("simrt.NewTicker: non-positive interval")
	}
	t := &Ticker{ctx: ctx, ticks: NewChan[time.Time](1)}
	t.ticks.ticker, t.ticks.site = true, callerPC() // reports name the Ticker and its maker
	ctx.CurrentTask().OnExit(t.end)
	t.mu.Lock()
	t.startLocked(d)
	t.mu.Unlock()
	return t
}

// startLocked starts a new period d from now. Called with mu held.
func (t *Ticker) startLocked(d time.Duration) {
	t.gen++
	t.d, t.start = d, t.ctx.Now()
	gen := t.gen
	t.timer = t.ctx.AfterFunc(d, func() { t.tick(gen) })
}

// tick delivers the tick the timer of generation gen was set for, unless
// the ticker was stopped or reset since, and sets the timer for the next
// tick due.
func (t *Ticker) tick(gen uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.gen {
		return
	}
	now := t.ctx.Now()
	t.ticks.TrySend(now) // dropped if the last tick is still held
	k := now.Sub(t.start)/t.d + 1
	next := t.start.Add(k * t.d)
	t.timer = t.ctx.AfterFunc(next.Sub(now), func() { t.tick(gen) })
}

// stopLocked cancels the pending timer and drops a tick still held.
// Called with mu held.
func (t *Ticker) stopLocked() {
	t.gen++
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	t.ticks.TryRecv()
}

// Stop stops the ticker: no tick is delivered after it, not even one
// already due. Stop may be called more than once, from any task.
func (t *Ticker) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopLocked()
}

// Reset stops the ticker and restarts it with period d: the next tick
// comes d from now. It panics if d <= 0, or if the task that made the
// ticker has ended.
func (t *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("simrt.Ticker.Reset: non-positive interval")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead {
		panic("simrt.Ticker.Reset: the task that made the ticker has ended")
	}
	t.stopLocked()
	t.startLocked(d)
}

// end stops the ticker for good; it runs when the task that made it ends.
func (t *Ticker) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dead = true
	t.stopLocked()
}

// Recv parks until the next tick and returns the runtime time at which it
// was delivered. On a stopped ticker it parks until aborted, as a receive
// from a stopped time.Ticker's channel blocks.
// It panics at the call if ctx is nil.
func (t *Ticker) Recv(ctx Caller) time.Time {
	mustContext(ctx == nil, "Ticker.Recv")
	v, _ := t.ticks.Recv(ctx)
	return v
}

// TryRecv returns the tick held, if there is one, without parking.
func (t *Ticker) TryRecv() (time.Time, bool) { return t.ticks.TryRecv() }

// OnTick is a Select case that takes the next tick and passes its time to
// f, which may be nil.
func (t *Ticker) OnTick(f func(at time.Time)) Case {
	return t.ticks.OnRecv(func(v time.Time, _ bool) {
		if f != nil {
			f(v)
		}
	})
}
