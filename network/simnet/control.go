package simnet

import (
	"net/netip"
	"sort"
	"strings"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/telemetry/audit"
)

// The methods below change the network while the simulation runs. Each is
// recorded as an event on the Recorder, takes effect at once, and may be
// called from any task of the runtime (or outside a task, before the run).
//
// A fault that could affect nothing is an error, not a silent no-op: Cut,
// Partition, Clog and SetLink (with a link that is not perfect) between
// addresses of which neither originates connections, or one is unknown,
// and Isolate of an unknown address, return an error wrapping ErrNoEffect
// that names the addresses and change nothing. An address is known once a
// Host view was built for it (the simulator builds one for every
// context's host, Context.WithHost and nodes included), a listener bound
// it, or a connection or dial attempt had it at one end; it originates
// once a Host view was built for it or a dial left from it. The calls that
// undo faults (Heal, Join, Rejoin, HealAll, Release) never fail. Each
// fault that takes effect starts an Effect (see Effects).

// SetLink sets the link from one host to another. Bytes already in flight
// keep their arrival times; later sends use the new link. It panics on a
// negative or out-of-range field, and returns an error wrapping ErrNoEffect
// for a link that is not perfect between addresses no connection can use
// (see above). A perfect link (the zero Link) is always accepted.
func (n *Network) SetLink(from, to netip.Addr, l Link) error {
	l.validate()
	return n.change(func() error {
		var by *Effect
		if !l.perfect() {
			if err := n.checkPair("SetLink", from.Unmap(), to.Unmap()); err != nil {
				return err
			}
			by = n.newEffect(fault.Link, from.Unmap(), to.Unmap(), l)
		}
		k := n.link(from.Unmap(), to.Unmap())
		k.cfg, k.explicit, k.cfgBy = l, true, by
		return nil
	}, audit.NetSetLink, from.String(), to.String(), l.String())
}

// SetDefaultLink sets the link between every pair of hosts that has not
// been given one with SetLink, now and later.
func (n *Network) SetDefaultLink(l Link) {
	l.validate()
	n.change(func() error {
		n.def, n.defBy = l, nil
		if !l.perfect() {
			n.defBy = n.newEffect(fault.DefaultLink, netip.Addr{}, netip.Addr{}, l)
		}
		for _, k := range n.linkList {
			if !k.explicit {
				k.cfg, k.cfgBy = l, n.defBy
			}
		}
		return nil
	}, audit.NetSetDefaultLink, l.String())
}

// Cut partitions the link from one host to another, one way: bytes sent
// that way are held until Heal (or until HoldTimeout resets their
// connection), and dials between the two hosts in either direction fail,
// since a connection needs both ways. The other direction keeps working.
// It returns an error wrapping ErrNoEffect, and cuts nothing, when neither
// host originates connections or one is unknown (see above).
func (n *Network) Cut(from, to netip.Addr) error {
	n.mu.Lock()
	err := n.checkPair("Cut", from.Unmap(), to.Unmap())
	n.mu.Unlock()
	if err != nil {
		return err
	}
	n.cut(from, to, nil)
	return nil
}

// cut cuts the link from one host to another, counting on by, or on a new
// "cut" effect when by is nil.
func (n *Network) cut(from, to netip.Addr, by *Effect) {
	n.change(func() error {
		if by == nil {
			by = n.newEffect(fault.Cut, from.Unmap(), to.Unmap(), Link{})
		}
		k := n.link(from.Unmap(), to.Unmap())
		k.cut, k.cutBy = true, by
		n.countHeld(by, func(l *link) bool { return l == k })
		return nil
	}, audit.NetCut, from.String(), to.String())
}

// Heal undoes Cut for the link from one host to another. Held bytes are
// delivered in order, at once if their arrival time has passed.
func (n *Network) Heal(from, to netip.Addr) {
	n.change(func() error {
		k := n.link(from.Unmap(), to.Unmap())
		k.cut, k.cutBy = false, nil
		return nil
	}, audit.NetHeal, from.String(), to.String())
}

// Partition cuts the links between a and b both ways. It returns an error
// wrapping ErrNoEffect, and cuts nothing, when neither a nor b originates
// connections or one of them is unknown (see above): the typical mistake
// is two processes that listen on a and b but dial from 127.0.0.1 because
// their contexts were not given WithHost.
func (n *Network) Partition(a, b netip.Addr) error {
	n.mu.Lock()
	err := n.checkPair("Partition", a.Unmap(), b.Unmap())
	var by *Effect
	if err == nil {
		n.faults.partition++
		by = n.newEffect(fault.Partition, a.Unmap(), b.Unmap(), Link{})
	}
	n.mu.Unlock()
	if err != nil {
		return err
	}
	n.cut(a, b, by)
	n.cut(b, a, by)
	return nil
}

// Join heals the links between a and b both ways.
func (n *Network) Join(a, b netip.Addr) {
	n.Heal(a, b)
	n.Heal(b, a)
}

// Isolate cuts every link from and to h, now and later, until Rejoin. It
// returns an error wrapping ErrNoEffect, and isolates nothing, when h is
// unknown (see above).
func (n *Network) Isolate(h netip.Addr) error {
	return n.change(func() error {
		if err := n.checkHost("Isolate", h.Unmap()); err != nil {
			return err
		}
		st := n.host(h.Unmap())
		by := n.newEffect(fault.Isolate, h.Unmap(), netip.Addr{}, Link{})
		st.isolated, st.isolatedBy = true, by
		n.countHeld(by, func(l *link) bool { return l.from == st || l.to == st })
		return nil
	}, audit.NetIsolate, h.String())
}

// Rejoin ends Isolate for h. Links cut one by one stay cut.
func (n *Network) Rejoin(h netip.Addr) {
	n.change(func() error {
		st := n.host(h.Unmap())
		st.isolated, st.isolatedBy = false, nil
		return nil
	}, audit.NetRejoin, h.String())
}

// HealAll heals every cut and rejoins every isolated host. Clogs stay.
func (n *Network) HealAll() {
	n.change(func() error {
		for _, k := range n.linkList {
			k.cut, k.cutBy = false, nil
			k.from.isolated, k.from.isolatedBy = false, nil
			k.to.isolated, k.to.isolatedBy = false, nil
		}
		for _, h := range n.hosts { // order does not matter: every host gets the same value
			h.isolated, h.isolatedBy = false, nil
		}
		return nil
	}, audit.NetHealAll)
}

// Clog holds everything on the link from one host to another, bytes and
// dials alike, until Release. Unlike Cut it never fails a dial and never
// times out a connection. It returns an error wrapping ErrNoEffect, and
// clogs nothing, when neither host originates connections or one is
// unknown (see above).
func (n *Network) Clog(from, to netip.Addr) error {
	return n.change(func() error {
		if err := n.checkPair("Clog", from.Unmap(), to.Unmap()); err != nil {
			return err
		}
		by := n.newEffect(fault.Clog, from.Unmap(), to.Unmap(), Link{})
		k := n.link(from.Unmap(), to.Unmap())
		k.clogged, k.clogBy = true, by
		n.countHeld(by, func(l *link) bool { return l == k })
		return nil
	}, audit.NetClog, from.String(), to.String())
}

// Release ends Clog on the link from one host to another: what it held is
// delivered in order.
func (n *Network) Release(from, to netip.Addr) {
	n.change(func() error {
		k := n.link(from.Unmap(), to.Unmap())
		k.clogged, k.clogBy = false, nil
		return nil
	}, audit.NetRelease, from.String(), to.String())
}

// change applies f under the lock, records the event, wakes dials waiting
// on a path, and lets every pipe deliver what the change let through. When
// f fails, nothing is recorded and its error is returned.
func (n *Network) change(f func() error, label audit.Label, fields ...string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := f(); err != nil {
		return err
	}
	n.event(label, fields...)
	n.changed.NotifyAll()
	live := n.pipes[:0]
	for _, p := range n.pipes {
		if p.alive() {
			live = append(live, p)
		}
	}
	clear(n.pipes[len(live):])
	n.pipes = live
	for _, p := range n.pipes {
		p.pump()
	}
	return nil
}

// String describes every link whose state differs from a perfect, open
// link, one per line, sorted: "from -> to: state". It is meant for test
// output.
func (n *Network) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var lines []string
	for _, k := range n.linkList {
		var b strings.Builder
		b.WriteString(k.from.ip.String() + " -> " + k.to.ip.String() + ":")
		plain := true
		if !k.cfg.perfect() {
			b.WriteString(" " + k.cfg.String())
			plain = false
		}
		for _, s := range []struct {
			on   bool
			name string
		}{{k.cut, "cut"}, {k.clogged, "clogged"}, {k.from.isolated, "from-isolated"}, {k.to.isolated, "to-isolated"}} {
			if s.on {
				b.WriteString(" " + s.name)
				plain = false
			}
		}
		if !plain {
			lines = append(lines, b.String())
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
