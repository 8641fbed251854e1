package simrt

import (
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// Signal is an event that fires once with an int value and wakes every
// task waiting for it. The zero value is ready to use.
type Signal struct {
	mu    core.Lock
	fired bool
	value int
	q     core.WaitQueue
}

// NewSignal returns an unfired signal.
func NewSignal() *Signal { return &Signal{} }

// Fire fires the signal with value and reports true, or reports false if it
// had already fired (the first value stays).
func (s *Signal) Fire(value int) bool {
	ok := s.fireOp(value)
	s.mu.Point()
	return ok
}

func (s *Signal) fireOp(value int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fired {
		return false
	}
	s.fired, s.value = true, value
	s.q.NotifyAll()
	return true
}

// Fired returns the value and true once the signal has fired.
func (s *Signal) Fired() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.fired
}

// Wait parks until the signal fires and returns its value.
func (s *Signal) Wait(ctx rtapi.Plumbing) int {
	s.mu.Enter(ctx.CurrentTask())
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		return s.value
	}
	waitUntilOn(ctx, &s.mu, &s.q, signalWait, nil, func() bool { return s.fired })
	v := s.value
	s.mu.Unlock()
	return v
}

// OnFire is a Select case that completes when the signal fires and passes
// the value to f, which may be nil.
func (s *Signal) OnFire(f func(value int)) Case { return &signalCase{s: s, f: f} }

type signalCase struct {
	s *Signal
	f func(int)
	v int
}

func (c *signalCase) arm(w *core.Waiter) bool {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.Bind(w.Task)
	if s.fired {
		c.v = s.value
		return true
	}
	s.q.Push(w)
	return false
}

func (c *signalCase) disarm(w *core.Waiter) {
	c.s.mu.Lock()
	c.s.q.Remove(w)
	c.s.mu.Unlock()
}

func (c *signalCase) fire() {
	if c.f != nil {
		c.f(c.v)
	}
}

func (c *signalCase) release() {}
