package electbench

import (
	"math/rand/v2"
	"time"
)

// The floor driver runs the scenario the way the fastest Go simulators do
// (detsim, for one): every node is callbacks on one event heap of
// (time, sequence, closure), on the calling goroutine, with no tasks, no
// network stack, no auditor and no metrics. It is what simrt is measured
// against.

// floorEvent is one entry of the event heap.
type floorEvent struct {
	at  int64 // nanoseconds since the start
	seq uint64
	fn  func()
}

func (e *floorEvent) before(o *floorEvent) bool {
	return e.at < o.at || e.at == o.at && e.seq < o.seq
}

// floorLoop is a binary min-heap of events ordered by (at, seq).
type floorLoop struct {
	now int64
	seq uint64
	h   []floorEvent
}

// at schedules fn at time t.
func (l *floorLoop) at(t int64, fn func()) {
	l.seq++
	l.h = append(l.h, floorEvent{at: t, seq: l.seq, fn: fn})
	i := len(l.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !l.h[i].before(&l.h[p]) {
			break
		}
		l.h[i], l.h[p] = l.h[p], l.h[i]
		i = p
	}
}

// pop removes and returns the earliest event; the heap must not be empty.
func (l *floorLoop) pop() floorEvent {
	e := l.h[0]
	last := len(l.h) - 1
	l.h[0] = l.h[last]
	l.h[last] = floorEvent{}
	l.h = l.h[:last]
	i := 0
	for {
		c := 2*i + 1
		if c >= last {
			break
		}
		if c+1 < last && l.h[c+1].before(&l.h[c]) {
			c++
		}
		if !l.h[c].before(&l.h[i]) {
			break
		}
		l.h[i], l.h[c] = l.h[c], l.h[i]
		i = c
	}
	return e
}

// floor is one run of the scenario on the event loop.
type floor struct {
	loop    floorLoop
	rng     *rand.Rand
	nodes   []*Node
	check   *Checker
	res     Result
	err     error
	stopped bool
	events  int // events run
	cut     [Nodes][Nodes]bool
	cutGen  [Nodes][Nodes]uint64 // bumped by every cut, so that a message in flight across it is lost
	last    [Nodes][Nodes]int64  // arrival of the latest message on each way: in order, as on a connection
	split   time.Duration        // when the split was made; forever until then
	heal    time.Duration        // when it was healed; forever until then
}

// RunFloor runs the scenario with seed on the bare event loop. It returns
// an error if the safety check fails.
func RunFloor(seed uint64) (Result, error) {
	f := runFloor(seed, false)
	return f.res, f.err
}

// runFloor runs seed; anyVote plants the double-vote bug in every node.
func runFloor(seed uint64, anyVote bool) *floor {
	f := &floor{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), check: NewChecker(), split: forever, heal: forever}
	for i := range Nodes {
		nd := NewNode(i, Nodes, f.rng)
		nd.anyVote = anyVote
		f.nodes = append(f.nodes, nd)
	}
	f.loop.at(int64(SplitAt), func() { f.endPhase(true) })
	f.loop.at(int64(HealAt), func() { f.endPhase(false) })
	f.loop.at(int64(EndAt), func() {
		if err := f.check.EndPhase(f.nodes); err != nil {
			f.err = err
		}
		f.stopped = true
	})
	for _, nd := range f.nodes {
		nd.Start()
		f.apply(nd)
	}
	for !f.stopped && len(f.loop.h) > 0 {
		e := f.loop.pop()
		f.loop.now = e.at
		e.fn()
		f.events++
	}
	f.res.finish(f.nodes, f.check)
	return f
}

// endPhase runs the safety check and then splits (or heals) the cluster.
func (f *floor) endPhase(split bool) {
	if err := f.check.EndPhase(f.nodes); err != nil {
		f.err, f.stopped = err, true
		return
	}
	if split {
		f.split = time.Duration(f.loop.now)
	} else {
		f.heal = time.Duration(f.loop.now)
	}
	for a := range Nodes {
		for b := range Nodes {
			if crossesSplit(a, b) {
				f.cut[a][b] = split
				if split {
					f.cutGen[a][b]++
				}
			}
		}
	}
}

// apply carries out what nd's last call asked for.
func (f *floor) apply(nd *Node) {
	if nd.Won() {
		f.check.Won(nd.Term(), nd.ID(), time.Duration(f.loop.now))
	}
	for _, m := range nd.Sends() {
		f.send(m)
	}
	for _, t := range nd.Timers() {
		kind, gen := t.Kind, t.Gen
		f.loop.at(f.loop.now+int64(t.After), func() {
			nd.Tick(kind, gen)
			f.apply(nd)
		})
	}
}

// send puts m on its way, or loses it.
func (f *floor) send(m Message) {
	f.res.Sent++
	if f.rng.Float64() < LossRate {
		return
	}
	from, to := m.From, m.To
	if f.cut[from][to] {
		return
	}
	at := f.loop.now + int64(MinDelay) + f.rng.Int64N(int64(MaxDelay-MinDelay)+1)
	at = max(at, f.last[from][to])
	f.last[from][to] = at
	gen, sent := f.cutGen[from][to], f.loop.now
	f.loop.at(at, func() {
		if f.cut[from][to] || f.cutGen[from][to] != gen {
			return
		}
		if leaked(int(from), int(to), time.Duration(sent), time.Duration(at), f.split, f.heal) {
			f.res.Leaked++
		}
		f.res.Delivered++
		nd := f.nodes[to]
		nd.Step(m)
		f.apply(nd)
	})
}
