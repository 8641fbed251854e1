package simrt

import (
	"time"

	"github.com/simrt/simrt/internal/core"
)

// Shutdown is the Stop/Stopped machinery, shared by both runtimes; each
// runtime owns one. User code calls ctx.Stop and ctx.Stopped instead.
type Shutdown struct {
	mu      core.Lock
	stopped bool
	holders int
	fired   Signal // fires with the stop value
	drained Signal // fires once stopped and every holder released
}

// Stopped implements Spawner.Stopped for the task t.
func (s *Shutdown) Stopped(t *core.Task) *StopSignal {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return &StopSignal{s: s, released: true}
	}
	s.holders++
	ss := &StopSignal{s: s}
	if t != nil {
		t.OnExit(ss.Release)
	}
	return ss
}

// Stop implements Spawner.Stop.
func (s *Shutdown) Stop(ctx Runtime, value int, timeout time.Duration) error {
	s.mu.Lock()
	if !s.stopped {
		s.stopped = true
		s.fired.Fire(value)
		if s.holders == 0 {
			s.drained.Fire(0)
		}
	}
	s.mu.Unlock()
	if timeout <= 0 {
		s.drained.Wait(ctx)
		return nil
	}
	if Select(ctx, s.drained.OnFire(nil), After(ctx, timeout, nil)) == 1 {
		return ErrTimeout
	}
	return nil
}

// StopSignal fires with the first value given to Stop. While it is held
// (taken before Stop and not yet released), Stop waits for it.
type StopSignal struct {
	s        *Shutdown
	mu       core.Lock
	released bool
}

// Wait parks until Stop is called and returns its value.
func (ss *StopSignal) Wait(ctx Runtime) int { return ss.s.fired.Wait(ctx) }

// Fired returns the stop value and true once Stop has been called.
func (ss *StopSignal) Fired() (int, bool) { return ss.s.fired.Fired() }

// OnStop is a Select case that completes when Stop is called and passes the
// value to f, which may be nil.
func (ss *StopSignal) OnStop(f func(value int)) Case { return ss.s.fired.OnFire(f) }

// Release tells Stop that this holder has finished its shutdown work. The
// runtime releases a signal when the task that took it ends; Release may be
// called earlier, and more than once.
func (ss *StopSignal) Release() {
	ss.mu.Lock()
	if ss.released {
		ss.mu.Unlock()
		return
	}
	ss.released = true
	ss.mu.Unlock()
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holders--
	if s.stopped && s.holders == 0 {
		s.drained.Fire(0)
	}
}
