package deterministic

// wakeState tells how a parked task was first woken, so that a deadline
// keeps its instant although the clock moves a whole Cycle at a time: the
// timers due within one step fire in the order of their instants, but the
// tasks they wake all resume after them. A task whose deadline expired
// while it was parked, and which something else then woke at a later
// instant (its Sleep ending, bytes arriving, a value handed to it), was
// still waiting when the deadline passed: as in production, it unwinds
// (simrt.Timeout returns ErrTimeout) instead of completing its wait. A wake
// at the deadline's very instant is a tie, and f wins it.
type wakeState uint8

const (
	wokeFirst      wakeState = iota // not woken yet, or woken first by something else
	wokeByDeadline                  // woken first by an interrupt (see noteDeadlineWake)
	wokeLate                        // then woken at a later instant: it unwinds
)

// instant returns the simulated time of what is happening now: the
// instant of the timer firing, or the current time between timers.
func (rt *runtime) instant() int64 {
	if rt.firing {
		return rt.firingAt
	}
	return rt.now
}

// noteDeadlineWake records that t's park was first ended by an interrupt
// (its deadline expiring, or an abort), at the current instant.
func (rt *runtime) noteDeadlineWake(t *task) {
	if rt.deadlineWakes == nil {
		rt.deadlineWakes = make(map[*task]int64)
	}
	t.wake = wokeByDeadline
	rt.deadlineWakes[t] = rt.instant()
}

// noteLaterWake handles a wake of t after its deadline's: at a later
// instant the deadline came first (t unwinds when it resumes); at the same
// instant it is a tie, which the wait wins.
func (rt *runtime) noteLaterWake(t *task) {
	at := rt.deadlineWakes[t]
	switch now := rt.instant(); {
	case now > at:
		t.wake = wokeLate
	case now == at:
		t.wake = wokeFirst
	default:
		return
	}
	delete(rt.deadlineWakes, t)
}

// resumeWoken runs as t resumes from a park woken by an interrupt first:
// if a later wake came too, the deadline passed first, and t unwinds.
func (t *task) resumeWoken() {
	late := t.wake == wokeLate
	t.wake = wokeFirst
	delete(t.rt.deadlineWakes, t)
	if late {
		t.ct.CheckInterrupt()
	}
}
