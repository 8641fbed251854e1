package simrt

import (
	"github.com/simrt/simrt/internal/core"
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
// It panics at the call if ctx is nil.
func (s *Signal) Wait(ctx Caller) int {
	mustContext(ctx == nil, "Signal.Wait")
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
func (s *Signal) OnFire(f func(value int)) Case {
	return &primCase[int, func(int)]{p: s, f: f}
}

func (s *Signal) armCase(v *int, w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&s.mu, &s.q, w, func() bool {
		*v = s.value
		return s.fired
	})
}

func (s *Signal) disarmCase(_ *int, w *core.Waiter) bool {
	return disarmNotified(&s.mu, &s.q, w, nil)
}

func (s *Signal) fireCase(v *int, f func(int)) {
	if f != nil {
		f(*v)
	}
}

func (s *Signal) describeCase(*int) string { return signalWait.BlockedOn() }
