package simnet

import (
	"net/netip"

	"github.com/simrt/simrt/fault"
)

// Controls is the fault surface of a Network without its data plane: it
// changes links, partitions and clogs and reports their effects, but it
// cannot bind, dial or accept. It is what a simulator hands to the code it
// runs (deterministic.Context.Network), so that every connection goes
// through the runtime's layered stack (scheduling points, metered,
// audited) and none can bypass the audit by using the simulated network
// directly. Its methods are the Network methods of the same names.
type Controls struct{ n *Network }

// ControlsOf returns the controls of n.
func ControlsOf(n *Network) *Controls { return &Controls{n: n} }

// SetLink is Network.SetLink.
func (c *Controls) SetLink(from, to netip.Addr, l Link) error { return c.n.SetLink(from, to, l) }

// SetDefaultLink is Network.SetDefaultLink.
func (c *Controls) SetDefaultLink(l Link) { c.n.SetDefaultLink(l) }

// Cut is Network.Cut.
func (c *Controls) Cut(from, to netip.Addr) error { return c.n.Cut(from, to) }

// Heal is Network.Heal.
func (c *Controls) Heal(from, to netip.Addr) { c.n.Heal(from, to) }

// Partition is Network.Partition.
func (c *Controls) Partition(a, b netip.Addr) error { return c.n.Partition(a, b) }

// Join is Network.Join.
func (c *Controls) Join(a, b netip.Addr) { c.n.Join(a, b) }

// Isolate is Network.Isolate.
func (c *Controls) Isolate(h netip.Addr) error { return c.n.Isolate(h) }

// Rejoin is Network.Rejoin.
func (c *Controls) Rejoin(h netip.Addr) { c.n.Rejoin(h) }

// HealAll is Network.HealAll.
func (c *Controls) HealAll() { c.n.HealAll() }

// Clog is Network.Clog.
func (c *Controls) Clog(from, to netip.Addr) error { return c.n.Clog(from, to) }

// Release is Network.Release.
func (c *Controls) Release(from, to netip.Addr) { c.n.Release(from, to) }

// ResetHost is Network.ResetHost.
func (c *Controls) ResetHost(h netip.Addr) int { return c.n.ResetHost(h) }

// Effects is Network.Effects.
func (c *Controls) Effects() []Effect { return c.n.Effects() }

// Faults is Network.Faults.
func (c *Controls) Faults() fault.Counts { return c.n.Faults() }

// String is Network.String.
func (c *Controls) String() string { return c.n.String() }
