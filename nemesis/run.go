package nemesis

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
)

// Effect is what applying one event did.
type Effect struct {
	Event Event
	// Applied and Undone are the simulated times (since the nemesis
	// started) at which the event was applied and undone; Undone is zero
	// while it is active.
	Applied, Undone time.Duration
	// Errs are the errors the calls that applied and undid it returned (a
	// Kill of a node whose main had already returned, a cut the network
	// found useless); the nemesis carries on past them.
	Errs []error

	down []Node // the nodes this event took down, to bring back up
}

// String returns the effect in one line: the event, then what went wrong.
func (f Effect) String() string {
	s := f.Event.String()
	for _, err := range f.Errs {
		s += "; error: " + err.Error()
	}
	return s
}

// Counts counts effects by their event's kind, under its fault.Name
// ("partition", "disk-fail"): the faults a nemesis applied.
func Counts(effects []Effect) fault.Counts {
	var c fault.Counts
	for _, f := range effects {
		c.Add(f.Event.Kind.Name(), 1)
	}
	return c
}

// Nemesis applies a schedule to a cluster. Make it with Start (or Run for
// the nodes of a deterministic runtime).
type Nemesis struct {
	ctx     simrt.Context
	c       Cluster
	s       Schedule
	start   time.Time
	log     *slog.Logger
	effects []Effect
	active  []int // indexes into effects of the events not yet undone
	healed  *simrt.Signal

	cuts, clogs map[[2]netip.Addr]int // active count per link
	isolated    map[netip.Addr]int
}

// Start validates s against c and spawns the task (named "nemesis") that
// applies each event of s at its time, from now, undoes it For later, and
// at s.Heal undoes every fault still active and brings every node back up
// (restarted, resumed). Each step is logged on ctx's logger.
func Start(ctx simrt.Context, c Cluster, s Schedule) (*Nemesis, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if c.Net == nil {
		return nil, fmt.Errorf("nemesis: Cluster.Net is nil")
	}
	for i, e := range s.Events {
		for _, name := range append(slices.Clip(e.Nodes), e.Other...) {
			if c.node(name) == nil {
				return nil, fmt.Errorf("nemesis: event %d (%s): no node %q (the cluster has %s)", i+1, e, name, group(c.names()))
			}
		}
	}
	ctx = ctx.Child("nemesis")
	m := &Nemesis{ctx: ctx, c: c, s: s, start: ctx.Now(), log: simrt.Logger(ctx), healed: simrt.NewSignal(),
		cuts: map[[2]netip.Addr]int{}, clogs: map[[2]netip.Addr]int{}, isolated: map[netip.Addr]int{}}
	simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
		m.loop(ctx)
		return struct{}{}
	})
	return m, nil
}

// Schedule returns the schedule the nemesis runs.
func (m *Nemesis) Schedule() Schedule { return m.s }

// Effects returns what the nemesis has done so far, one entry per applied
// event, in order.
func (m *Nemesis) Effects() []Effect { return slices.Clone(m.effects) }

// Healed reports whether the heal has happened.
func (m *Nemesis) Healed() bool {
	_, ok := m.healed.Fired()
	return ok
}

// WaitHealed parks the calling task until the heal has happened.
func (m *Nemesis) WaitHealed(ctx simrt.Caller) { m.healed.Wait(ctx) }

// Report returns the schedule and what became of each event, for a
// failure report: one line per event ("applied", "undone at", errors).
func (m *Nemesis) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nemesis schedule (%d faults, heal at %v):\n", len(m.s.Events), m.s.Heal)
	for i, e := range m.s.Events {
		fmt.Fprintf(&b, "  %s", e)
		if i < len(m.effects) {
			f := m.effects[i]
			if f.Undone > 0 {
				fmt.Fprintf(&b, "  [undone at %v]", f.Undone)
			} else {
				b.WriteString("  [active]")
			}
			for _, err := range f.Errs {
				fmt.Fprintf(&b, " [error: %v]", err)
			}
		} else {
			b.WriteString("  [not reached]")
		}
		b.WriteByte('\n')
	}
	if m.Healed() {
		fmt.Fprintf(&b, "  %v heal [done]\n", m.s.Heal)
	} else {
		fmt.Fprintf(&b, "  %v heal [not reached]\n", m.s.Heal)
	}
	return b.String()
}

type step struct {
	at    time.Duration
	undo  bool
	event int
}

// loop runs the schedule: at each time, undos before applies, in event
// order; the heal last.
func (m *Nemesis) loop(ctx simrt.Context) {
	var steps []step
	for i, e := range m.s.Events {
		steps = append(steps, step{at: e.At, event: i}, step{at: min(e.At+e.For, m.s.Heal), undo: true, event: i})
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.undo != b.undo {
			if a.undo {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.event, b.event)
	})
	for _, st := range steps {
		if st.at >= m.s.Heal {
			break
		}
		ctx.SleepUntil(m.start.Add(st.at))
		if st.undo {
			m.undo(st.event)
		} else {
			m.apply(st.event)
		}
	}
	ctx.SleepUntil(m.start.Add(m.s.Heal))
	m.heal()
}

func (m *Nemesis) now() time.Duration { return m.ctx.Now().Sub(m.start) }

func (m *Nemesis) apply(i int) {
	e := m.s.Events[i]
	m.effects = append(m.effects, Effect{Event: e, Applied: m.now()})
	m.active = append(m.active, i)
	m.log.Info("nemesis: fault", "event", e.String())
	m.do(i, false)
}

func (m *Nemesis) undo(i int) {
	at := slices.Index(m.active, i)
	if at < 0 {
		return
	}
	m.active = slices.Delete(m.active, at, at+1)
	m.effects[i].Undone = m.now()
	m.log.Info("nemesis: end of fault", "event", m.s.Events[i].String())
	m.do(i, true)
}

// heal undoes every active fault, then brings up every node that is
// still down or paused (whoever put it there).
func (m *Nemesis) heal() {
	m.log.Info("nemesis: heal", "active", len(m.active))
	for len(m.active) > 0 {
		m.undo(m.active[0])
	}
	for _, n := range m.c.Nodes {
		switch n.Status() {
		case Paused:
			m.note(-1, n.Resume())
		case Down:
			m.note(-1, n.Restart())
		}
	}
	m.healed.Fire(1)
}

// note records err against event i (or logs it, for the heal).
func (m *Nemesis) note(i int, err error) {
	if err == nil {
		return
	}
	if i < 0 {
		m.log.Warn("nemesis: heal", "error", err.Error())
		return
	}
	m.effects[i].Errs = append(m.effects[i].Errs, err)
	m.log.Warn("nemesis: fault", "event", m.s.Events[i].String(), "error", err.Error())
}

// do applies (or undoes) event i, by its kind's entry of the kind table;
// what a call returns is noted against the event.
func (m *Nemesis) do(i int, undo bool) {
	e := m.s.Events[i]
	e.Kind.spec().do(m, i, m.nodes(e.Nodes), undo)
}

// doSides cuts (or heals) both ways every link between the two sides of a
// partition or bridge, except the links of a node on both sides (the
// bridge).
func (m *Nemesis) doSides(i int, nodes []Node, undo bool) {
	e := m.s.Events[i]
	other := m.nodes(e.Other)
	for _, a := range nodes {
		for _, b := range other {
			if slices.Contains(e.Nodes, b.Name()) || slices.Contains(e.Other, a.Name()) {
				continue // the bridge, on both sides
			}
			m.note(i, m.cut(a.Host(), b.Host(), undo))
			m.note(i, m.cut(b.Host(), a.Host(), undo))
		}
	}
}

// resetClock puts n back on the global clock: no drift, and its skew
// (whatever offset, drift or jump made it) stepped away.
func (m *Nemesis) resetClock(i int, n Node) {
	m.note(i, n.SetClock(0, 0))
	if d := n.Skew(); d != 0 {
		m.note(i, n.JumpClock(-d))
	}
}

func (m *Nemesis) nodes(names []string) []Node {
	out := make([]Node, len(names))
	for i, name := range names {
		out[i] = m.c.node(name)
	}
	return out
}

// cut counts the cuts of each link, so that overlapping partitions heal a
// link only when the last of them ends; clog and isolate count the same way.
func (m *Nemesis) cut(from, to netip.Addr, undo bool) error {
	return hold(m.cuts, [2]netip.Addr{from, to}, undo,
		func() error { return m.c.Net.Cut(from, to) }, func() error { return m.c.Net.Heal(from, to) })
}

func (m *Nemesis) clog(from, to netip.Addr, undo bool) error {
	return hold(m.clogs, [2]netip.Addr{from, to}, undo,
		func() error { return m.c.Net.Clog(from, to) }, func() error { return m.c.Net.Release(from, to) })
}

func (m *Nemesis) isolate(h netip.Addr, undo bool) error {
	return hold(m.isolated, h, undo, func() error { return m.c.Net.Isolate(h) }, func() error { return m.c.Net.Rejoin(h) })
}

// hold counts the faults holding k: apply runs when the first takes hold,
// release when the last is undone.
func hold[K comparable](holds map[K]int, k K, undo bool, apply, release func() error) error {
	if undo {
		holds[k]--
		if holds[k] != 0 {
			return nil
		}
		delete(holds, k)
		return release()
	}
	holds[k]++
	if holds[k] != 1 {
		return nil
	}
	return apply()
}

var _ Network = simnetAdapter{}
