package faulty

import (
	"fmt"

	"strings"
	"time"

	"github.com/simrt/simrt/fault"
)

// Effect is what one fault instance did to the operations of a Storage: a
// disk fault (from the SetDiskFault call that set it to the next call) or a
// crash. Effects describe a run; they are not audited.
type Effect struct {
	// Fault is fault.DiskFault ("disk") for a disk fault and fault.Crash
	// ("crash") for a Crash.
	Fault fault.Name
	// Detail describes the instance: the DiskFault's String for a disk
	// fault, empty for a crash.
	Detail string
	// At is when the instance began, by the clock given to SetClock (the
	// zero time without one).
	At time.Time
	// Failed counts the operations a disk fault failed; Slowed those it
	// delayed.
	Failed, Slowed uint64
	// Lost and Torn count the journaled unsynced writes of which a crash
	// kept no byte, or only some bytes.
	Lost, Torn uint64
}

// String describes the effect in one line: "disk fail at 1.5s: 3 ops
// failed", "crash at 10s: 2 writes lost, 1 writes torn". At is shown as
// the time since the Unix epoch, the simulator's start, and left out when
// it is the zero time.
func (e Effect) String() string {
	var b strings.Builder
	b.WriteString(e.Fault.String())
	if e.Detail != "" {
		b.WriteString(" " + e.Detail)
	}
	if !e.At.IsZero() {
		fmt.Fprintf(&b, " at %v", e.At.Sub(time.Unix(0, 0)))
	}
	b.WriteString(":")
	var parts []string
	for _, c := range []struct {
		n    uint64
		what string
	}{{e.Failed, "ops failed"}, {e.Slowed, "ops slowed"}, {e.Lost, "writes lost"}, {e.Torn, "writes torn"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no effect")
	}
	b.WriteString(" " + strings.Join(parts, ", "))
	return b.String()
}

// Tallies returns the effect's non-zero counters, in a fixed order:
// fault.OpsFailed, OpsSlowed, WritesLost, WritesTorn.
func (e Effect) Tallies() []fault.Tally {
	return fault.NonZero(
		fault.Tally{Counter: fault.OpsFailed, N: e.Failed}, fault.Tally{Counter: fault.OpsSlowed, N: e.Slowed},
		fault.Tally{Counter: fault.WritesLost, N: e.Lost}, fault.Tally{Counter: fault.WritesTorn, N: e.Torn})
}

// SetClock sets the clock that dates Effects; nil, the default, dates them
// at the zero time.
func (s *Storage) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Effects returns what every fault instance has done so far, oldest first:
// each SetDiskFault call that set a fault, and each Crash.
func (s *Storage) Effects() []Effect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Effect(nil), s.effects...)
}

// addEffect starts a new effect and returns its index. Called with s.mu
// held.
func (s *Storage) addEffect(f fault.Name, detail string) int {
	var at time.Time
	if s.now != nil {
		at = s.now()
	}
	s.effects = append(s.effects, Effect{Fault: f, Detail: detail, At: at})
	return len(s.effects) - 1
}

// effect returns effect i, or a scratch effect that nobody reads when i is
// negative. Called with s.mu held.
func (s *Storage) effect(i int) *Effect {
	if i < 0 {
		return &s.scratch
	}
	return &s.effects[i]
}
