package electbench

import (
	"fmt"
	"time"
)

// The scenario both drivers run: five nodes; every message is lost with
// probability LossRate and otherwise delivered after a uniform delay in
// [MinDelay, MaxDelay], in order per direction of a pair of nodes (both
// drivers model a connection per direction); at SplitAt the cluster is
// split into {0,1} | {2,3,4}, at HealAt healed, and at EndAt the run ends.
// A message whose way is cut at any moment between its send and its
// arrival is lost.
const (
	Nodes    = 5
	LossRate = 0.1
	MinDelay = 1 * time.Millisecond
	MaxDelay = 10 * time.Millisecond
	SplitAt  = 3 * time.Second
	HealAt   = 6 * time.Second
	EndAt    = 8 * time.Second
)

// minority reports whether node i is on the small side of the split.
func minority(i int) bool { return i < 2 }

// crossesSplit reports whether the split cuts the way between a and b.
func crossesSplit(a, b int) bool { return minority(a) != minority(b) }

// forever stands for a split or heal that has not happened yet.
const forever = time.Duration(1<<63 - 1)

// leaked reports whether a message from one node to another, sent and
// arriving at the given times, crossed the split although it stood at some
// moment of the message's flight: the split was made at split and healed
// at heal (forever when not yet). The scenario loses every such message.
func leaked(from, to int, sent, arrived, split, heal time.Duration) bool {
	return crossesSplit(from, to) && sent < heal && arrived > split
}

// Phases, in order, as the Checker names them.
var phaseNames = [...]string{"before the split", "during the split", "after the heal"}

// Result is what one run did. Two runs of one seed on one driver give the
// same Result.
type Result struct {
	Sent      int    // messages the nodes asked to send
	Delivered int    // messages handed to a node
	Elections int    // campaigns started
	Wins      int    // campaigns won
	MaxTerm   uint64 // highest term any node reached
	// Leaked counts messages delivered across the split although it stood
	// at some moment of their flight: the network model allows none.
	Leaked int
	// SplitLeader is the node leading the highest term when the split
	// came, or -1 if none did. Where it sits decides most of a run's work:
	// a minority that lost its leader campaigns for the whole split.
	SplitLeader int
	Audit       string // the simulator's audit state; "" for the floor
}

// finish totals the nodes' own counters into r and takes what the
// checker saw.
func (r *Result) finish(nodes []*Node, c *Checker) {
	r.SplitLeader = c.atEnd[0]
	if c.phase == 0 {
		r.SplitLeader = -1
	}
	for _, nd := range nodes {
		r.Elections += nd.Elections
		r.Wins += nd.Wins
		r.MaxTerm = max(r.MaxTerm, nd.Term())
	}
}

// Checker is the safety check: no two nodes lead in one term. Drivers
// report every won election with Won and call EndPhase at the end of each
// phase, which fails on any violation seen in the phase, and also when two
// nodes hold leadership of one term at that moment.
type Checker struct {
	leader map[uint64]int // term -> the node that won it; looked up, never iterated
	bad    error
	phase  int
	atEnd  [len(phaseNames)]int // the node leading the highest term at each phase's end; -1: none
}

// NewChecker returns a checker for a fresh run.
func NewChecker() *Checker { return &Checker{leader: make(map[uint64]int)} }

// Won records that node won term at (time since the start).
func (c *Checker) Won(term uint64, node int, at time.Duration) {
	if prev, ok := c.leader[term]; ok && prev != node && c.bad == nil {
		c.bad = fmt.Errorf("electbench: safety violated %s: nodes %d and %d both lead term %d (second at %v)",
			c.phaseName(), prev, node, term, at)
	}
	if _, ok := c.leader[term]; !ok {
		c.leader[term] = node
	}
}

// EndPhase checks the phase that ends now and starts the next one.
func (c *Checker) EndPhase(nodes []*Node) error {
	if c.bad == nil {
		for i, a := range nodes {
			for _, b := range nodes[i+1:] {
				if a.Role() == Leader && b.Role() == Leader && a.Term() == b.Term() {
					c.bad = fmt.Errorf("electbench: safety violated %s: nodes %d and %d both lead term %d at its end",
						c.phaseName(), a.ID(), b.ID(), a.Term())
				}
			}
		}
	}
	if c.phase < len(c.atEnd) {
		c.atEnd[c.phase] = -1
		var top uint64
		for _, nd := range nodes {
			if nd.Role() == Leader && (c.atEnd[c.phase] == -1 || nd.Term() > top) {
				c.atEnd[c.phase], top = nd.ID(), nd.Term()
			}
		}
	}
	c.phase++
	return c.bad
}

func (c *Checker) phaseName() string {
	if c.phase < len(phaseNames) {
		return phaseNames[c.phase]
	}
	return "after the end"
}
