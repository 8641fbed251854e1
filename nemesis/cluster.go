package nemesis

import (
	"net/netip"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
)

// Status is a node's lifecycle state as the nemesis sees it.
type Status uint8

// The node states.
const (
	Up     Status = iota // running
	Paused               // paused (Pause)
	Down                 // killed or powered off
	Exited               // its main returned
)

// Node is what the nemesis drives of a node. Cluster adapts a
// *deterministic.Node to it; tests can drive a fake.
type Node interface {
	Name() string
	Host() netip.Addr
	Status() Status
	Kill() error
	PowerOff() error
	Restart() error
	Pause(d time.Duration) error
	Resume() error
	// SetClock sets the node's clock offset and drift from now on.
	SetClock(offset time.Duration, drift float64) error
	// JumpClock steps the node's clock by d; it fails, changing nothing,
	// if the clock would leave the range the node's clock can read.
	JumpClock(d time.Duration) error
	// Skew returns the node's clock minus the global clock.
	Skew() time.Duration
	SetDiskFault(f faulty.DiskFault)
	// Tasks returns the node's live tasks and what each waits on.
	Tasks() []deterministic.TaskState
}

// Network is what the nemesis changes of the network; *simnet.Controls
// provides it through Cluster.
type Network interface {
	Cut(from, to netip.Addr) error
	Heal(from, to netip.Addr) error
	Isolate(h netip.Addr) error
	Rejoin(h netip.Addr) error
	Clog(from, to netip.Addr) error
	Release(from, to netip.Addr) error
	SetLink(from, to netip.Addr, l simnet.Link) error
}

// Cluster is what a nemesis runs against: the nodes, by name, and the
// network between them.
type Cluster struct {
	Nodes []Node
	Net   Network
	// Link is the link the nemesis restores after a Latency or Loss fault
	// (the zero Link, a perfect one, by default).
	Link simnet.Link
}

func (c Cluster) node(name string) Node {
	for _, n := range c.Nodes {
		if n.Name() == name {
			return n
		}
	}
	return nil
}

// names returns the cluster's node names, in order.
func (c Cluster) names() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Name()
	}
	return out
}

// simnetAdapter is a simulated network's controls as the nemesis's Network.
type simnetAdapter struct{ n *simnet.Controls }

// Cut implements Network.Cut.
func (a simnetAdapter) Cut(from, to netip.Addr) error { return a.n.Cut(from, to) }

// Heal implements Network.Heal.
func (a simnetAdapter) Heal(from, to netip.Addr) error { a.n.Heal(from, to); return nil }

// Isolate implements Network.Isolate.
func (a simnetAdapter) Isolate(h netip.Addr) error { return a.n.Isolate(h) }

// Rejoin implements Network.Rejoin.
func (a simnetAdapter) Rejoin(h netip.Addr) error { a.n.Rejoin(h); return nil }

// Clog implements Network.Clog.
func (a simnetAdapter) Clog(from, to netip.Addr) error { return a.n.Clog(from, to) }

// Release implements Network.Release.
func (a simnetAdapter) Release(from, to netip.Addr) error { a.n.Release(from, to); return nil }

// SetLink implements Network.SetLink.
func (a simnetAdapter) SetLink(from, to netip.Addr, l simnet.Link) error {
	return a.n.SetLink(from, to, l)
}

// SimNetwork returns the controls n as the nemesis's Network.
func SimNetwork(n *simnet.Controls) Network { return simnetAdapter{n} }
