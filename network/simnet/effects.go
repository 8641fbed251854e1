package simnet

import (
	"fmt"

	"net/netip"
	"strings"
	"time"

	"github.com/simrt/simrt/fault"
)

// Effect is what one fault instance (one control call: Partition, Cut,
// Clog, Isolate, SetLink with a link that is not perfect, SetDefaultLink,
// ResetHost) did while it lasted. It is counted from the call until the state it set
// is undone or replaced (Heal, Join, Rejoin, HealAll, Release, another
// call on the same link). Effects describe a run; they are not audited and
// counting them draws nothing.
type Effect struct {
	// Fault is the control call: fault.Partition, fault.Cut, fault.Clog,
	// fault.Isolate, fault.Link (SetLink), fault.DefaultLink
	// (SetDefaultLink) or fault.HostReset (ResetHost: a node's process
	// died).
	Fault fault.Name
	// From and To are the addresses the call named: both ends of a
	// partition (From < To is not implied: as given), the one host of an
	// isolation or a host reset (To invalid), none for a default link.
	From, To netip.Addr
	// Link is the link set by SetLink or SetDefaultLink.
	Link Link
	// At is when the call was made.
	At time.Time

	// Held counts Sends whose bytes a cut, partition, isolation or clog
	// held: sent onto the blocked link, or in flight when it was blocked.
	Held uint64
	// Delayed counts Sends a link's latency, jitter, bandwidth or loss
	// delayed.
	Delayed uint64
	// Dropped counts Sends whose bytes were discarded, in flight, by a
	// connection reset this fault caused (for ResetHost, in either
	// direction).
	Dropped uint64
	// Refused counts dials that failed at once across a cut or isolation.
	Refused uint64
	// DialsHeld counts dials that had to wait: for a clog's release, or
	// (with Config.DialTimeout) for a cut to heal.
	DialsHeld uint64
	// Resets counts connections reset: by the link's Reset draw, by
	// Config.HoldTimeout while this fault held their bytes, or by
	// ResetHost.
	Resets uint64
}

// String describes the effect in one line, for reports:
// "partition 10.0.0.1 <-> 10.0.0.2 at 1.5s: 12 sends held, 3 dials refused".
// At is shown as the time since the Unix epoch, the simulator's start.
func (e Effect) String() string {
	var b strings.Builder
	b.WriteString(e.Fault.String())
	switch e.Fault {
	case fault.Partition:
		fmt.Fprintf(&b, " %v <-> %v", e.From, e.To)
	case fault.Isolate, fault.HostReset:
		fmt.Fprintf(&b, " %v", e.From)
	case fault.Link:
		fmt.Fprintf(&b, " %v -> %v (%v)", e.From, e.To, e.Link)
	case fault.DefaultLink:
		fmt.Fprintf(&b, " (%v)", e.Link)
	default:
		fmt.Fprintf(&b, " %v -> %v", e.From, e.To)
	}
	fmt.Fprintf(&b, " at %v:", e.At.Sub(time.Unix(0, 0)))
	var parts []string
	for _, c := range []struct {
		n    uint64
		what string
	}{
		{e.Held, "sends held"}, {e.Delayed, "sends delayed"}, {e.Dropped, "sends dropped"},
		{e.Refused, "dials refused"}, {e.DialsHeld, "dials held"}, {e.Resets, "conns reset"},
	} {
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
// fault.SendsHeld, SendsDelayed, SendsDropped, DialsRefused, DialsHeld,
// ConnsReset.
func (e Effect) Tallies() []fault.Tally {
	return fault.NonZero(
		fault.Tally{Counter: fault.SendsHeld, N: e.Held}, fault.Tally{Counter: fault.SendsDelayed, N: e.Delayed},
		fault.Tally{Counter: fault.SendsDropped, N: e.Dropped}, fault.Tally{Counter: fault.DialsRefused, N: e.Refused},
		fault.Tally{Counter: fault.DialsHeld, N: e.DialsHeld}, fault.Tally{Counter: fault.ConnsReset, N: e.Resets})
}

// Effects returns what every fault instance has done so far, in call
// order.
func (n *Network) Effects() []Effect {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]Effect, len(n.effects))
	for i, e := range n.effects {
		out[i] = *e
	}
	return out
}

// newEffect starts counting a fault instance. Called with mu held.
func (n *Network) newEffect(f fault.Name, from, to netip.Addr, l Link) *Effect {
	e := &Effect{Fault: f, From: from, To: to, Link: l, At: n.rt.Now()}
	n.effects = append(n.effects, e)
	return e
}

// blocker is the effect that blocks l: a cut or isolation before a clog.
// Called with mu held, only for a blocked link.
func (n *Network) blocker(l *link) *Effect {
	switch {
	case l.cut && l.cutBy != nil:
		return l.cutBy
	case l.from.isolated && l.from.isolatedBy != nil:
		return l.from.isolatedBy
	case l.to.isolated && l.to.isolatedBy != nil:
		return l.to.isolatedBy
	case l.clogged && l.clogBy != nil:
		return l.clogBy
	}
	return &n.scratch
}

// severer is the effect that severs l (a cut or isolation). Called with mu
// held, only for a severed link.
func (n *Network) severer(l *link) *Effect {
	if !l.cut && (l.from.isolated || l.to.isolated) {
		return n.blocker(l)
	}
	if l.cut && l.cutBy != nil {
		return l.cutBy
	}
	return &n.scratch
}

// countHeld counts, for a new fault e, the Sends in flight on the pipes
// that cross a link match selects. Called with mu held.
func (n *Network) countHeld(e *Effect, match func(*link) bool) {
	for _, p := range n.pipes {
		if p.alive() && p.inFlight() && match(p.link) {
			e.Held += uint64(len(p.flight) - p.head)
		}
	}
}

// countReset counts a connection reset, and the Sends it discarded, on the
// effect that caused it. Called with mu held, before the reset discards.
func (n *Network) countReset(p *pipe, why string) {
	e := &n.scratch
	switch {
	case why == "hold_timeout":
		e = n.severer(p.link)
	case p.link.cfgBy != nil:
		e = p.link.cfgBy
	}
	e.Resets++
	for _, q := range [2]*pipe{p, p.peer} {
		e.Dropped += uint64(len(q.flight) - q.head)
	}
}
