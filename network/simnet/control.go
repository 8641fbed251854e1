package simnet

import (
	"net/netip"
	"sort"
	"strings"
)

// The methods below change the network while the simulation runs. Each is
// recorded as an event on the Recorder, takes effect at once, and may be
// called from any task of the runtime (or outside a task, before the run).
// Addresses name hosts; an address never used before becomes a host.

// SetLink sets the link from one host to another. Bytes already in flight
// keep their arrival times; later sends use the new link. It panics on a
// negative or out-of-range field.
func (n *Network) SetLink(from, to netip.Addr, l Link) {
	l.validate()
	n.change(func() {
		k := n.link(from.Unmap(), to.Unmap())
		k.cfg, k.explicit = l, true
	}, "net_set_link", from.String(), to.String(), l.String())
}

// SetDefaultLink sets the link between every pair of hosts that has not
// been given one with SetLink, now and later.
func (n *Network) SetDefaultLink(l Link) {
	l.validate()
	n.change(func() {
		n.def = l
		for _, k := range n.linkList {
			if !k.explicit {
				k.cfg = l
			}
		}
	}, "net_set_default_link", l.String())
}

// Cut partitions the link from one host to another, one way: bytes sent
// that way are held until Heal (or until HoldTimeout resets their
// connection), and dials between the two hosts in either direction fail,
// since a connection needs both ways. The other direction keeps working.
func (n *Network) Cut(from, to netip.Addr) {
	n.change(func() { n.link(from.Unmap(), to.Unmap()).cut = true }, "net_cut", from.String(), to.String())
}

// Heal undoes Cut for the link from one host to another. Held bytes are
// delivered in order, at once if their arrival time has passed.
func (n *Network) Heal(from, to netip.Addr) {
	n.change(func() { n.link(from.Unmap(), to.Unmap()).cut = false }, "net_heal", from.String(), to.String())
}

// Partition cuts the links between a and b both ways.
func (n *Network) Partition(a, b netip.Addr) {
	n.mu.Lock()
	n.faults.partition++
	n.mu.Unlock()
	n.Cut(a, b)
	n.Cut(b, a)
}

// Join heals the links between a and b both ways.
func (n *Network) Join(a, b netip.Addr) {
	n.Heal(a, b)
	n.Heal(b, a)
}

// Isolate cuts every link from and to h, now and later, until Rejoin.
func (n *Network) Isolate(h netip.Addr) {
	n.change(func() { n.host(h.Unmap()).isolated = true }, "net_isolate", h.String())
}

// Rejoin ends Isolate for h. Links cut one by one stay cut.
func (n *Network) Rejoin(h netip.Addr) {
	n.change(func() { n.host(h.Unmap()).isolated = false }, "net_rejoin", h.String())
}

// HealAll heals every cut and rejoins every isolated host. Clogs stay.
func (n *Network) HealAll() {
	n.change(func() {
		for _, k := range n.linkList {
			k.cut = false
			k.from.isolated = false
			k.to.isolated = false
		}
		for _, h := range n.hosts { // order does not matter: every host gets the same value
			h.isolated = false
		}
	}, "net_heal_all")
}

// Clog holds everything on the link from one host to another, bytes and
// dials alike, until Release. Unlike Cut it never fails a dial and never
// times out a connection.
func (n *Network) Clog(from, to netip.Addr) {
	n.change(func() { n.link(from.Unmap(), to.Unmap()).clogged = true }, "net_clog", from.String(), to.String())
}

// Release ends Clog on the link from one host to another: what it held is
// delivered in order.
func (n *Network) Release(from, to netip.Addr) {
	n.change(func() { n.link(from.Unmap(), to.Unmap()).clogged = false }, "net_release", from.String(), to.String())
}

// change applies f under the lock, records the event, wakes dials waiting
// on a path, and lets every pipe deliver what the change let through.
func (n *Network) change(f func(), label string, fields ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f()
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
