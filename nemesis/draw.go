package nemesis

import (
	"math/rand/v2"
	"slices"
	"time"
)

// SeedRand returns the generator a run should draw its schedule from: one
// seeded by the run's seed but apart from the runtime's own stream, so that
// drawing a schedule consumes none of the run's randomness and replaying
// the schedule from a file gives the run the seed gave it.
func SeedRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6e656d65736973)) // "nemesis"
}

// Draw draws a fault schedule over nodes (names, in a fixed order) from
// rng, as cfg describes: faults start GapMin to GapMax apart from
// cfg.Start until cfg.Heal, each of a kind drawn by weight (under swarm
// testing, from the seed's own subset and weights) and lasting its kind's
// duration, cut short by the heal. Draw never overlaps two faults of the
// same family on one node (two crashes, two clock faults, two disk
// faults), never lets more than cfg.MaxDown nodes be down at once, and
// runs one latency or loss fault at a time; a draw that finds no node
// free skips its turn. The same rng state, nodes and cfg give the same
// schedule. Draw panics if rng is nil.
func Draw(rng *rand.Rand, nodes []string, cfg Config) (Schedule, error) {
	if rng == nil {
		panic("nemesis.Draw: nil *rand.Rand (use SeedRand)")
	}
	cfg, err := cfg.withDefaults(nodes)
	if err != nil {
		return Schedule{}, err
	}
	faults := cfg.Faults
	if !cfg.NoSwarm {
		faults = swarm(rng, faults)
	}
	total := 0
	for _, f := range faults {
		total += f.Weight
	}
	d := &drawer{rng: rng, cfg: cfg, nodes: nodes, busy: make([][numClasses]time.Duration, len(nodes))}
	s := Schedule{Heal: cfg.Heal}
	for t := cfg.Start; ; {
		t += d.between(cfg.GapMin, cfg.GapMax)
		if t >= cfg.Heal {
			break
		}
		pick := rng.IntN(total)
		f := faults[0]
		for _, g := range faults {
			if pick < g.Weight {
				f = g
				break
			}
			pick -= g.Weight
		}
		dur := min(d.between(f.Min, f.Max), cfg.Heal-t)
		if dur <= 0 {
			continue
		}
		if e, ok := d.event(f.Kind, t, dur); ok {
			s.Events = append(s.Events, e)
		}
	}
	return s, nil
}

// swarm returns a random non-empty subset of faults, in order, each with
// its weight multiplied by a random factor in [1, 10].
func swarm(rng *rand.Rand, faults []Fault) []Fault {
	for {
		var sub []Fault
		for _, f := range faults {
			if rng.IntN(2) == 0 {
				continue
			}
			f.Weight *= 1 + rng.IntN(10)
			sub = append(sub, f)
		}
		if len(sub) > 0 {
			return sub
		}
	}
}

type drawer struct {
	rng   *rand.Rand
	cfg   Config
	nodes []string
	busy  [][numClasses]time.Duration // per node and class: the end of its last fault
	link  time.Duration               // the end of the last latency or loss fault
	class class                       // the class of the kind being drawn
}

// between draws a duration in [lo, hi] in whole milliseconds (lo itself
// when the range is shorter than a millisecond), so that schedules read
// well.
func (d *drawer) between(lo, hi time.Duration) time.Duration {
	steps := int64((hi - lo) / time.Millisecond)
	if steps <= 0 {
		return lo
	}
	return lo + time.Duration(d.rng.Int64N(steps+1))*time.Millisecond
}

// signed draws ±[1ms, hi].
func (d *drawer) signed(hi time.Duration) time.Duration {
	v := d.between(min(time.Millisecond, hi), hi)
	if d.rng.IntN(2) == 0 {
		return -v
	}
	return v
}

// free returns the indexes of the nodes with no fault of class c at t.
func (d *drawer) free(c class, t time.Duration) []int {
	var ix []int
	for i := range d.nodes {
		if d.busy[i][c] <= t {
			ix = append(ix, i)
		}
	}
	return ix
}

func (d *drawer) names(ix []int) []string {
	slices.Sort(ix)
	out := make([]string, len(ix))
	for i, x := range ix {
		out[i] = d.nodes[x]
	}
	return out
}

// event draws the targets and parameters of a fault of kind k from t for
// dur, by its entry of the kind table, or reports that none can start now.
func (d *drawer) event(k Kind, t, dur time.Duration) (Event, bool) {
	e := Event{At: t, Kind: k, For: dur}
	spec := k.spec()
	d.class = spec.class
	ok := spec.draw(d, &e)
	return e, ok
}

// set sets *p to v; it lets a draw chain a parameter after its targets.
func (d *drawer) set(p *time.Duration, v time.Duration) bool {
	*p = v
	return true
}

// one picks e's single node among those with no fault of its kind's class
// at e.At (and, for a process fault, only while fewer than MaxDown are down),
// and marks it busy for the fault's duration.
func (d *drawer) one(e *Event) bool {
	c := d.class
	free := d.free(c, e.At)
	if c == classProcess && len(d.nodes)-len(free) >= d.cfg.MaxDown {
		return false
	}
	if len(free) == 0 {
		return false
	}
	i := free[d.rng.IntN(len(free))]
	d.busy[i][c] = e.At + e.For
	e.Nodes = []string{d.nodes[i]}
	return true
}

// anyNode picks e's single node among all, busy or not.
func (d *drawer) anyNode(e *Event) bool {
	e.Nodes = []string{d.nodes[d.rng.IntN(len(d.nodes))]}
	return true
}

// partition draws the two sides of a partition: a random minority and the
// rest.
func (d *drawer) partition(e *Event) bool {
	n := len(d.nodes)
	if n < 2 {
		return false
	}
	perm := d.rng.Perm(n)
	size := 1 + d.rng.IntN(max(1, n/2))
	e.Nodes, e.Other = d.names(perm[:size]), d.names(perm[size:])
	return true
}

// bridge draws the two halves of a bridge, which share their first node.
func (d *drawer) bridge(e *Event) bool {
	n := len(d.nodes)
	if n < 3 {
		return false
	}
	perm := d.rng.Perm(n)
	half := 1 + (n-1)/2
	a := append([]int{perm[0]}, perm[1:half]...)
	b := append([]int{perm[0]}, perm[half:]...)
	e.Nodes, e.Other = d.names(a), d.names(b)
	return true
}

// oneWay draws the two ends of a cut or clog.
func (d *drawer) oneWay(e *Event) bool {
	n := len(d.nodes)
	if n < 2 {
		return false
	}
	perm := d.rng.Perm(n)
	e.Nodes, e.Other = []string{d.nodes[perm[0]]}, []string{d.nodes[perm[1]]}
	return true
}

// linkFault draws the node of a Latency or Loss fault, one at a time in
// the cluster; the kind's draw adds its parameters.
func (d *drawer) linkFault(e *Event) bool {
	if d.link > e.At {
		return false
	}
	d.link = e.At + e.For
	e.Nodes = []string{d.nodes[d.rng.IntN(len(d.nodes))]}
	return true
}

// powerLoss takes every node, when none is down.
func (d *drawer) powerLoss(e *Event) bool {
	if len(d.free(classProcess, e.At)) < len(d.nodes) {
		return false
	}
	for i := range d.nodes {
		d.busy[i][classProcess] = e.At + e.For
	}
	e.Nodes = slices.Clone(d.nodes)
	return true
}
