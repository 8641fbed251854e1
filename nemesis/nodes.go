package nemesis

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// Run starts s on the nodes of ctx's runtime (Context.Nodes, by name) and
// its simulated network; see Start. Call it from a task of the run after
// the nodes were added; the nemesis acts from the root's clock, the global
// one.
func Run(ctx *deterministic.Context, s Schedule) (*Nemesis, error) {
	if n := ctx.Node(); n != nil {
		return nil, fmt.Errorf("nemesis: Run from a context of node %s (it would die with the node): call it with the root's", n.Name())
	}
	return Start(ctx, ClusterOf(ctx), s)
}

// Names returns the names of ctx's nodes, in AddNode order: the nodes
// argument of Draw.
func Names(ctx *deterministic.Context) []string {
	var out []string
	for _, n := range ctx.Nodes() {
		out = append(out, n.Name())
	}
	return out
}

// ClusterOf returns the nodes of ctx's runtime and its network as a
// Cluster.
func ClusterOf(ctx *deterministic.Context) Cluster {
	c := Cluster{Net: SimNetwork(ctx.Network())}
	for _, n := range ctx.Nodes() {
		c.Nodes = append(c.Nodes, simNode{n: n, ctx: ctx})
	}
	return c
}

// simNode is a *deterministic.Node as the nemesis drives it.
type simNode struct {
	n   *deterministic.Node
	ctx *deterministic.Context
}

var _ Node = simNode{}

// Name implements Node.Name.
func (s simNode) Name() string { return s.n.Name() }

// Host implements Node.Host.
func (s simNode) Host() netip.Addr { return s.n.Host() }

// Kill implements Node.Kill.
func (s simNode) Kill() error { return s.n.Kill() }

// PowerOff implements Node.PowerOff.
func (s simNode) PowerOff() error { return s.n.PowerOff() }

// Restart implements Node.Restart.
func (s simNode) Restart() error { return s.n.Restart() }

// Pause implements Node.Pause.
func (s simNode) Pause(d time.Duration) error { return s.n.Pause(d) }

// Resume implements Node.Resume.
func (s simNode) Resume() error { return s.n.Resume() }

// JumpClock implements Node.JumpClock.
func (s simNode) JumpClock(d time.Duration) error { return s.n.JumpClock(d) }

// SetDiskFault implements Node.SetDiskFault.
func (s simNode) SetDiskFault(f faulty.DiskFault) { s.n.Storage().SetDiskFault(f) }

// Tasks implements Node.Tasks.
func (s simNode) Tasks() []deterministic.TaskState { return s.n.Tasks() }

// Status implements Node.Status.
func (s simNode) Status() Status {
	switch s.n.State() {
	case deterministic.NodePaused:
		return Paused
	case deterministic.NodeKilled, deterministic.NodeOff:
		return Down
	case deterministic.NodeExited:
		return Exited
	}
	return Up
}

// SetClock implements Node.SetClock.
func (s simNode) SetClock(offset time.Duration, drift float64) error {
	return s.n.SetClock(deterministic.NodeClock{Offset: offset, Drift: drift})
}

// Skew implements Node.Skew: the node's clock minus the global one (the root's).
func (s simNode) Skew() time.Duration { return s.n.Now().Sub(s.ctx.Now()) }
