package decision

import "math"

// Default returns the plainest decision of kind k: the value that makes
// the choice as if nothing random happened. A scheduling point does not
// yield and a spawned task waits its turn (KindYield, KindSpawn); the
// ready list keeps its order (KindSchedule); a Select tries its first case
// (KindSelect); no fault, loss or extra delay is drawn (KindFault: every
// fault probability test fails); a Buggify site does not fire
// (KindBuggify); a bounded draw returns 0 (KindRand, KindPriority).
//
// Every default is accepted at once by the bounded draws (Lemire's
// method, in the simulator and in math/rand/v2), so a run fed nothing but
// defaults never loops on a rejected draw. Shrinkers move decisions toward
// these values.
func (k Kind) Default() uint64 {
	switch k {
	case KindSelect, KindRand, KindPriority:
		// 1, not 0: bits.Mul64(1, n) has a low word of n, never rejected,
		// and a high word of 0, the first choice.
		return 1
	default:
		// The largest value: above every yield and fault threshold, and
		// bounded(n) gives n-1, which keeps a Fisher–Yates shuffle the
		// identity.
		return math.MaxUint64
	}
}

// IsDefault reports whether d is the default decision of its kind.
func (d Decision) IsDefault() bool { return d.Value == d.Kind.Default() }

// NonDefault returns how many of the stream's decisions are not the
// default of their kind.
func (s *Stream) NonDefault() int {
	n := 0
	for _, d := range s.Decisions {
		if !d.IsDefault() {
			n++
		}
	}
	return n
}

// DefaultAfter is a Decider that replays Stream and, where Stream has no
// decision for a choice (past its end, or a decision of another kind),
// answers the kind's default instead of leaving the choice to the seeded
// generator. A shrinker uses it: a shorter stream then means a run whose
// tail is plain, not a run whose tail is random.
type DefaultAfter struct {
	Stream *Stream
}

var _ Decider = DefaultAfter{}

// Decide implements Decider.
func (d DefaultAfter) Decide(pos uint64, kind Kind) (uint64, bool) {
	if d.Stream != nil {
		if v, ok := d.Stream.Decide(pos, kind); ok {
			return v, true
		}
	}
	return kind.Default(), true
}
