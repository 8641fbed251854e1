package nemesis

import (
	"cmp"
	"slices"
	"time"
)

// Fails reports whether a simulation with schedule s fails the way the
// shrink keeps: on the current run when fresh is 0, otherwise on the
// fresh'th fresh variant of it (the same schedule with another seed, or
// with the decisions after some point drawn anew). The fresh numbers one
// shrink passes are 1, 2, 3, ..., never the same twice, so a caller can
// map each to a seed of its own. When a fresh variant fails, the caller
// makes it the current run: later calls with fresh 0 run that variant.
type Fails func(s Schedule, fresh int) bool

// DeepOptions bounds ShrinkDeep.
type DeepOptions struct {
	// MaxRuns is the most simulations the shrink may run (no limit when
	// it is <= 0).
	MaxRuns int
	// Fresh is how many fresh variants to try before a fault is kept: when
	// dropping one fault of a 1-minimal schedule makes the current run
	// pass, up to Fresh variants run without it, and the first that fails
	// is kept. 0 tries none.
	Fresh int
}

// ShrinkDeep shrinks s further than ShrinkWithin: it drops faults by delta
// debugging, then makes the faults left simpler (Simpler: a narrower node
// set, a shorter duration, a smaller magnitude, a later start), since a
// simpler fault can make another redundant, and delta-debugs again; then,
// for each fault that delta debugging keeps, it tries o.Fresh fresh
// variants of the run without it (a failure that needs some interleaving
// plus fewer faults is still the same failure), and delta-debugs again on
// a variant that fails. It repeats while a pass changes something; when
// one changes nothing it doubles the fresh variants per fault, up to 8
// times o.Fresh, before it stops. fails(s, 0) must be true; otherwise ShrinkDeep
// returns s. It returns the smallest failing schedule found and the
// number of runs made, at most o.MaxRuns. Like Shrink it draws nothing at
// random: with a deterministic fails the result is deterministic.
func ShrinkDeep(s Schedule, fails Fails, o DeepOptions) (Schedule, int) {
	d := &deep{fails: fails, max: o.MaxRuns, heal: s.Heal}
	cur := slices.Clone(s.Events)
	cur = d.ddmin(cur)
	fresh := o.Fresh
	for doubled := 0; !d.spent(); {
		next, simpler := d.simplify(cur)
		if simpler {
			next = d.ddmin(next)
		}
		next, reseeded := d.reseed(next, fresh)
		if reseeded {
			next = d.ddmin(next) // the new run may need fewer faults
		}
		cur = next
		switch {
		case simpler || reseeded:
		case fresh == 0 || doubled == maxDoublings:
			return Schedule{Events: cur, Heal: s.Heal}, d.runs
		default:
			// Stuck: try more fresh variants per fault.
			fresh, doubled = 2*fresh, doubled+1
		}
	}
	return Schedule{Events: cur, Heal: s.Heal}, d.runs
}

// maxDoublings is how many times ShrinkDeep doubles its fresh variants per
// fault when a pass changes nothing.
const maxDoublings = 3

// deep is the state of one ShrinkDeep.
type deep struct {
	fails Fails
	max   int
	runs  int
	fresh int // the last fresh number used
	heal  time.Duration
}

func (d *deep) spent() bool { return d.max > 0 && d.runs >= d.max }

// try runs the current run with evs unless the budget is spent.
func (d *deep) try(evs []Event, fresh int) bool {
	if d.spent() {
		return false
	}
	d.runs++
	return d.fails(Schedule{Events: slices.Clone(evs), Heal: d.heal}, fresh)
}

// ddmin drops faults of evs (which fails) by delta debugging.
func (d *deep) ddmin(evs []Event) []Event {
	left := 0
	if d.max > 0 {
		left = d.max - d.runs
		if left <= 0 {
			return evs
		}
	}
	small, _ := ShrinkWithin(Schedule{Events: evs, Heal: d.heal}, func(s Schedule) bool { return d.try(s.Events, 0) }, left)
	return small.Events
}

// simplify replaces each event of evs (which fails) by its simpler
// variants, the first that still fails, as long as one does. It reports
// whether any event changed.
func (d *deep) simplify(evs []Event) ([]Event, bool) {
	changed := false
	for _, orig := range slices.Clone(evs) {
		e := orig
		for !d.spent() {
			i := slices.IndexFunc(evs, func(x Event) bool { return sameEvent(x, e) })
			found := false
			for _, c := range Simpler(e, d.heal) {
				cand := slices.Clone(evs)
				cand[i] = c
				sortEvents(cand)
				if d.try(cand, 0) {
					evs, e, found, changed = cand, c, true, true
					break
				}
			}
			if !found {
				break
			}
		}
	}
	return evs, changed
}

// reseed tries, for each event of evs (which is 1-minimal for the current
// run), up to n fresh variants of the run without it; the first that
// fails becomes the current run, and reseed returns the smaller schedule
// with true.
func (d *deep) reseed(evs []Event, n int) ([]Event, bool) {
	if n <= 0 {
		return evs, false
	}
	for i := range evs {
		cand := slices.Delete(slices.Clone(evs), i, i+1)
		for range n {
			if d.spent() {
				return evs, false
			}
			d.fresh++
			if d.try(cand, d.fresh) {
				return cand, true
			}
		}
	}
	return evs, false
}

// sortEvents puts evs in time order, keeping the order of events at the
// same time.
func sortEvents(evs []Event) {
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
}

// sameEvent reports whether a and b are the same event.
func sameEvent(a, b Event) bool {
	return a.At == b.At && a.Kind == b.Kind && slices.Equal(a.Nodes, b.Nodes) && slices.Equal(a.Other, b.Other) &&
		a.For == b.For && a.Delay == b.Delay && a.Jitter == b.Jitter && a.Rate == b.Rate
}

// minSimpleDuration is the shortest duration or magnitude Simpler halves
// to, and the unit its halved durations are rounded down to.
const minSimpleDuration = time.Millisecond

// Simpler returns the variants of e that ShrinkDeep tries in its place,
// simplest first: a fault on fewer nodes (a partition or bridge becomes
// the isolation of one of its nodes, either side, a power loss of every node
// the power-off of one), then e with half its duration, then with half its
// magnitude (a clock step or offset, a latency, a disk delay, a loss rate
// or a drift), then e starting half its duration later. Every variant is
// a valid event that starts before heal; e itself is not among them.
func Simpler(e Event, heal time.Duration) []Event {
	var out []Event
	if split := e.Kind.spec().split; split != nil {
		out = append(out, split(e)...)
	}
	half := (e.For / 2).Truncate(minSimpleDuration)
	if half >= minSimpleDuration {
		c := e
		c.For = half
		out = append(out, c)
	}
	if c, ok := smaller(e); ok {
		out = append(out, c)
	}
	if later := e.At + half; half >= minSimpleDuration && later < heal {
		c := e
		c.At = later
		out = append(out, c)
	}
	return out
}

// smaller returns e with half its magnitude, if it has one to halve.
func smaller(e Event) (Event, bool) {
	if h := e.Kind.spec().params.halve; h != nil {
		return h(e)
	}
	return e, false
}
