package nemesis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
)

// The fault kinds, in the order Draw and the schedule file know them. Each
// is one entry of the kind table, kinds, below.
const (
	// Partition cuts a random minority of the nodes from the rest, both
	// ways.
	Partition Kind = iota + 1
	// Bridge splits the nodes in two halves that share one node, the
	// bridge: it reaches both halves, which do not reach each other.
	Bridge
	// Isolate cuts one node from every other host, both ways.
	Isolate
	// Cut cuts the link from one node to another, one way.
	Cut
	// Clog holds everything on the link from one node to another, one way,
	// until it ends.
	Clog
	// Latency adds latency and jitter to every link from and to one node.
	Latency
	// Loss makes a fraction of the sends from and to one node lost and
	// retransmitted.
	Loss
	// Kill kills one node's process (kill -9); it restarts when the fault
	// ends.
	Kill
	// PowerOff cuts one node's power (its unsynced writes follow the
	// storage fault model); it restarts when the fault ends.
	PowerOff
	// Pause stops one node's world (a GC pause, SIGSTOP); it resumes when
	// the fault ends.
	Pause
	// ClockOffset moves one node's clock by an offset.
	ClockOffset
	// ClockDrift makes one node's clock run fast or slow.
	ClockDrift
	// ClockJump steps one node's clock (an NTP step), and back when the
	// fault ends.
	ClockJump
	// DiskSlow makes every storage operation of one node slow.
	DiskSlow
	// DiskFail makes one node's storage fail (EIO).
	DiskFail
	// DiskFull makes one node's storage full (ENOSPC).
	DiskFull
	// DiskReadOnly makes one node's storage read-only (EROFS).
	DiskReadOnly
	// PowerLoss cuts the power of every node at once; they restart when
	// the fault ends.
	PowerLoss
)

// kindSpec is one fault kind: everything the nemesis knows of it. Adding a
// kind is its Kind constant and its entry of kinds, in this file, and its
// fault.Name in package fault, plus, for a new device, the hook its apply
// calls on a Node or the Network.
type kindSpec struct {
	name  fault.Name // the schedule file's spelling and the counts' key
	shape shape      // what an event targets
	// shared says the two sides of a twoSides kind may share nodes (a
	// bridge): each side then needs a node the other lacks, where
	// otherwise no node may be on both.
	shared bool
	class  class // what Draw never overlaps it with on one node
	// draw draws an event's targets and parameters (e.At, e.Kind and
	// e.For are set), marking what it takes busy, or reports that none
	// can start now. It must draw from d.rng the same way every time.
	draw func(d *drawer, e *Event) bool
	// do applies event i to its nodes (the event's Nodes, resolved), or
	// undoes it; what a call returns is noted against the event.
	do func(m *Nemesis, i int, nodes []Node, undo bool)
	// params are the event's parameters in the schedule line.
	params params
	// split returns the variants of e on fewer nodes that ShrinkDeep
	// tries first; nil for none.
	split func(e Event) []Event
}

// params reads and writes the parameters of a kind's events, between the
// targets and "for": none, a duration (Event.Delay) or a rate (Event.Rate).
type params struct {
	// format appends the parameters, each after a space.
	format func(b *strings.Builder, e Event)
	// parse reads them.
	parse func(p *eventParser) error
	// check reports a parameter out of range.
	check func(e Event) error
	// halve returns e with half its magnitude, if it has one to halve.
	halve func(e Event) (Event, bool)
}

// kinds is the kind table, indexed by Kind; entry 0 is no kind. It is
// set by init, since its entries refer to code that reads it, and never
// changes after (but for a test's own kinds).
var kinds []kindSpec

func init() { kinds = kindTable() }

// kindTable returns the kind table: one entry per kind, by family.
func kindTable() []kindSpec {
	return []kindSpec{
		// The network family.
		Partition: {name: fault.Partition, shape: twoSides, class: classNet,
			draw: (*drawer).partition, do: (*Nemesis).doSides, split: isolations},
		Bridge: {name: fault.Bridge, shape: twoSides, shared: true, class: classNet,
			draw: (*drawer).bridge, do: (*Nemesis).doSides, split: isolations},
		Isolate: {name: fault.Isolate, shape: oneNode, class: classNet,
			draw: (*drawer).anyNode,
			do: func(m *Nemesis, i int, ns []Node, undo bool) {
				m.note(i, m.isolate(ns[0].Host(), undo))
			}},
		Cut: {name: fault.Cut, shape: oneWay, class: classNet,
			draw: (*drawer).oneWay,
			do: func(m *Nemesis, i int, ns []Node, undo bool) {
				m.note(i, m.cut(ns[0].Host(), m.nodes(m.s.Events[i].Other)[0].Host(), undo))
			}},
		Clog: {name: fault.Clog, shape: oneWay, class: classNet,
			draw: (*drawer).oneWay,
			do: func(m *Nemesis, i int, ns []Node, undo bool) {
				m.note(i, m.clog(ns[0].Host(), m.nodes(m.s.Events[i].Other)[0].Host(), undo))
			}},
		Latency: {name: fault.Latency, shape: oneNode, class: classLink,
			draw: func(d *drawer, e *Event) bool {
				if !d.linkFault(e) {
					return false
				}
				e.Delay = d.between(time.Millisecond, d.cfg.MaxLatency)
				e.Jitter = d.between(0, e.Delay/2)
				return true
			},
			do: linkDo(func(l *simnet.Link, e Event) {
				l.Latency, l.Jitter = l.Latency+e.Delay, l.Jitter+e.Jitter
			}),
			params: latencyParams},
		Loss: {name: fault.Loss, shape: oneNode, class: classLink,
			draw: func(d *drawer, e *Event) bool {
				if !d.linkFault(e) {
					return false
				}
				e.Rate = math.Max(0.01, math.Round(d.rng.Float64()*d.cfg.MaxLoss*100)/100)
				return true
			},
			do:     linkDo(func(l *simnet.Link, e Event) { l.Loss = e.Rate }),
			params: rateParams(false, "rate", 0, 1, "(0, 1]")},

		// The process family.
		Kill: {name: fault.Kill, shape: oneNode, class: classProcess,
			draw: (*drawer).one, do: powerDo(Node.Kill)},
		PowerOff: {name: fault.PowerOff, shape: oneNode, class: classProcess,
			draw: (*drawer).one, do: powerDo(Node.PowerOff)},
		Pause: {name: fault.Pause, shape: oneNode, class: classProcess,
			draw: (*drawer).one,
			do: func(m *Nemesis, i int, ns []Node, undo bool) {
				if undo {
					m.note(i, ns[0].Resume())
				} else {
					m.note(i, ns[0].Pause(0))
				}
			}},
		PowerLoss: {name: fault.PowerLoss, shape: allNodes, class: classProcess,
			draw: (*drawer).powerLoss, do: powerDo(Node.PowerOff),
			split: func(e Event) []Event {
				var out []Event
				if len(e.Nodes) > 1 {
					for _, n := range e.Nodes {
						out = append(out, Event{At: e.At, Kind: PowerOff, Nodes: []string{n}, For: e.For})
					}
				}
				return out
			}},

		// The clock family. A backward offset or step is at most e.At, the
		// node's clock reading since the nemesis started (no other clock fault
		// of the node is active then), so that a clock that started at the
		// Unix epoch, deterministic's default StartTime, can take it: a larger
		// one would be refused (ErrClockRange). The cut changes only the
		// value, never the draws, so every other event of a schedule stays as
		// it was.
		ClockOffset: {name: fault.ClockOffset, shape: oneNode, class: classClock,
			draw: func(d *drawer, e *Event) bool {
				return d.one(e) && d.set(&e.Delay, max(d.signed(d.cfg.MaxOffset), -e.At))
			},
			do:     clockDo(func(n Node, e Event) error { return n.SetClock(e.Delay, 0) }),
			params: delayParams(true, false)},
		ClockDrift: {name: fault.ClockDrift, shape: oneNode, class: classClock,
			draw: func(d *drawer, e *Event) bool {
				if !d.one(e) {
					return false
				}
				ppm := 1 + d.rng.IntN(max(1, int(d.cfg.MaxDrift*1e6)))
				e.Rate = float64(ppm) / 1e6
				if d.rng.IntN(2) == 0 {
					e.Rate = -e.Rate
				}
				return true
			},
			do:     clockDo(func(n Node, e Event) error { return n.SetClock(0, e.Rate) }),
			params: rateParams(true, "drift", -0.5, 0.5, "(-0.5, 0.5)")},
		ClockJump: {name: fault.ClockJump, shape: oneNode, class: classClock,
			draw: func(d *drawer, e *Event) bool {
				return d.one(e) && d.set(&e.Delay, max(d.signed(d.cfg.MaxJump), -e.At))
			},
			do:     clockDo(func(n Node, e Event) error { return n.JumpClock(e.Delay) }),
			params: delayParams(true, false)},

		// The disk family.
		DiskSlow: {name: fault.DiskSlow, shape: oneNode, class: classDisk,
			draw: func(d *drawer, e *Event) bool {
				return d.one(e) && d.set(&e.Delay, d.between(time.Millisecond, d.cfg.MaxDiskSlow))
			},
			do:     diskDo(func(f *faulty.DiskFault, e Event) { f.Slow = e.Delay }),
			params: delayParams(false, true)},
		DiskFail: {name: fault.DiskFail, shape: oneNode, class: classDisk,
			draw: (*drawer).one, do: diskDo(func(f *faulty.DiskFault, _ Event) { f.Fail = true })},
		DiskFull: {name: fault.DiskFull, shape: oneNode, class: classDisk,
			draw: (*drawer).one, do: diskDo(func(f *faulty.DiskFault, _ Event) { f.Full = true })},
		DiskReadOnly: {name: fault.DiskReadOnly, shape: oneNode, class: classDisk,
			draw: (*drawer).one, do: diskDo(func(f *faulty.DiskFault, _ Event) { f.ReadOnly = true })},
	}
}

// isolations splits a partition or bridge into the isolation of each of
// its nodes, either side, each once.
func isolations(e Event) []Event {
	var out []Event
	var seen []string
	for _, n := range append(slices.Clip(e.Nodes), e.Other...) {
		if !slices.Contains(seen, n) {
			seen = append(seen, n)
			out = append(out, Event{At: e.At, Kind: Isolate, Nodes: []string{n}, For: e.For})
		}
	}
	return out
}

// linkDo sets the links between an event's node and every other node, both
// ways, to the cluster's link with set applied (or without it, to undo).
func linkDo(set func(l *simnet.Link, e Event)) func(m *Nemesis, i int, ns []Node, undo bool) {
	return func(m *Nemesis, i int, ns []Node, undo bool) {
		l := m.c.Link
		if !undo {
			set(&l, m.s.Events[i])
		}
		h := ns[0].Host()
		for _, o := range m.c.Nodes {
			if o.Host() != h {
				m.note(i, m.c.Net.SetLink(h, o.Host(), l))
				m.note(i, m.c.Net.SetLink(o.Host(), h, l))
			}
		}
	}
}

// powerDo takes an event's nodes down with down, or brings back up the
// ones it took down.
func powerDo(down func(Node) error) func(m *Nemesis, i int, ns []Node, undo bool) {
	return func(m *Nemesis, i int, ns []Node, undo bool) {
		if undo {
			// Only what this event took down: a node whose main had
			// returned stays as it was.
			for _, n := range m.effects[i].down {
				m.note(i, n.Restart())
			}
			return
		}
		for _, n := range ns {
			err := down(n)
			if err == nil {
				m.effects[i].down = append(m.effects[i].down, n)
			}
			m.note(i, err)
		}
	}
}

// clockDo applies a clock fault with set, or puts the node back on the
// global clock.
func clockDo(set func(n Node, e Event) error) func(m *Nemesis, i int, ns []Node, undo bool) {
	return func(m *Nemesis, i int, ns []Node, undo bool) {
		if undo {
			m.resetClock(i, ns[0])
			return
		}
		m.note(i, set(ns[0], m.s.Events[i]))
	}
}

// diskDo sets the disk fault set makes on the node, or clears it.
func diskDo(set func(f *faulty.DiskFault, e Event)) func(m *Nemesis, i int, ns []Node, undo bool) {
	return func(m *Nemesis, i int, ns []Node, undo bool) {
		var f faulty.DiskFault
		if !undo {
			set(&f, m.s.Events[i])
		}
		ns[0].SetDiskFault(f)
	}
}

// latencyParams are a Latency fault's: "<latency> jitter <jitter>".
var latencyParams = params{
	format: func(b *strings.Builder, e Event) { fmt.Fprintf(b, " %v jitter %v", e.Delay, e.Jitter) },
	parse: func(p *eventParser) error {
		var err error
		if p.e.Delay, err = p.dur("latency"); err == nil {
			err = p.word("jitter")
		}
		if err == nil {
			p.e.Jitter, err = p.dur("jitter")
		}
		return err
	},
	check: func(e Event) error {
		if e.Delay < 0 || e.Jitter < 0 {
			return fmt.Errorf("%s: negative latency or jitter", e.Kind)
		}
		return nil
	},
	halve: func(e Event) (Event, bool) {
		e.Delay, e.Jitter = (e.Delay / 2).Truncate(minSimpleDuration), (e.Jitter / 2).Truncate(minSimpleDuration)
		return e, e.Delay >= minSimpleDuration
	},
}

// delayParams are one duration, Event.Delay: signed ("+1.5s", for the
// clocks) or not, and if positive, required above zero.
func delayParams(signed, positive bool) params {
	return params{
		format: func(b *strings.Builder, e Event) {
			if signed {
				b.WriteString(" " + signedDuration(e.Delay))
			} else {
				fmt.Fprintf(b, " %v", e.Delay)
			}
		},
		parse: func(p *eventParser) (err error) {
			p.e.Delay, err = p.dur("duration")
			return err
		},
		check: func(e Event) error {
			if positive && e.Delay <= 0 {
				return fmt.Errorf("%s: delay %v is not positive", e.Kind, e.Delay)
			}
			return nil
		},
		halve: func(e Event) (Event, bool) {
			e.Delay = (e.Delay / 2).Truncate(minSimpleDuration)
			return e, e.Delay >= minSimpleDuration || e.Delay <= -minSimpleDuration
		},
	}
}

// rateParams are one rate, Event.Rate, in (lo, hi] (or (lo, hi) when
// signed, which also writes a '+' before a rate that is not negative);
// what names it in errors and span says the range.
func rateParams(signed bool, what string, lo, hi float64, span string) params {
	return params{
		format: func(b *strings.Builder, e Event) {
			b.WriteByte(' ')
			if signed && e.Rate >= 0 {
				b.WriteByte('+')
			}
			b.WriteString(strconv.FormatFloat(e.Rate, 'g', -1, 64))
		},
		parse: func(p *eventParser) error {
			s, err := p.next("rate")
			if err == nil {
				if p.e.Rate, err = strconv.ParseFloat(s, 64); err != nil {
					err = fmt.Errorf("%s: bad rate %q", p.e.Kind, s)
				}
			}
			return err
		},
		check: func(e Event) error {
			if !(e.Rate > lo && (e.Rate < hi || !signed && e.Rate == hi)) {
				return fmt.Errorf("%s: %s %v not in %s", e.Kind, what, e.Rate, span)
			}
			return nil
		},
		halve: func(e Event) (Event, bool) {
			e.Rate /= 2
			return e, e.Rate >= 0.01 || e.Rate <= -0.01
		},
	}
}
