package core

// Event is a signal that fires once with an int value; *simrt.Signal is
// one. Shutdown fires two of them and leaves the waiting to its caller, who
// waits with simrt's primitives.
type Event interface {
	// Fire fires the event with value and reports true, or reports false
	// if it had already fired.
	Fire(value int) bool
	// Fired returns the value and true once the event has fired.
	Fired() (int, bool)
}

// Shutdown is the Stop/Stopped bookkeeping a runtime keeps, once: which
// StopSignals are held, whether Stop has been called, and with which
// value. The zero value is ready to use. S is the event type and P its
// pointer (simrt's runtimes use Shutdown[simrt.Signal, *simrt.Signal]).
//
// A runtime's Stop calls Stop and then waits for the returned event (with
// simrt.Select and simrt.After for a timeout); its Stopped converts the
// result of Stopped to a *simrt.StopSignal.
type Shutdown[S any, P interface {
	*S
	Event
}] struct {
	mu      Lock
	stopped bool
	holders int
	fired   S // fires with the stop value
	drained S // fires once stopped and every holder released
}

// Stopped takes a StopSignal for the task t, which releases it when it
// ends (t may be nil: the caller releases it). Taken after Stop, the signal
// has already fired and holds nothing.
func (s *Shutdown[S, P]) Stopped(t *Task) *StopSignal[S, P] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return &StopSignal[S, P]{s: s, released: true}
	}
	s.holders++
	ss := &StopSignal[S, P]{s: s}
	if t != nil {
		t.OnExit(ss.Release)
	}
	return ss
}

// Stop fires every StopSignal with value, the first time it is called, and
// returns the event that fires once Stop has been called and every signal
// taken before it has been released. Stop itself does not wait.
func (s *Shutdown[S, P]) Stop(value int) (drained P) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		P(&s.fired).Fire(value)
		if s.holders == 0 {
			P(&s.drained).Fire(0)
		}
	}
	return &s.drained
}

// StopSignal is one hold on a Shutdown: simrt.StopSignal is this record
// seen through the methods users call (Wait, Fired, OnStop, Release).
type StopSignal[S any, P interface {
	*S
	Event
}] struct {
	s        *Shutdown[S, P]
	mu       Lock
	released bool
}

// Event returns the event that fires with the first Stop value.
func (ss *StopSignal[S, P]) Event() P { return &ss.s.fired }

// Release ends the hold: Stop no longer waits for it. Release may be called
// more than once; only the first call counts.
func (ss *StopSignal[S, P]) Release() {
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
		P(&s.drained).Fire(0)
	}
}
