package deterministic

import (
	"net/netip"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/network/metered"
	"github.com/simrt/simrt/network/simnet"
)

// networkState is the runtime's simulated network: one simnet.Network and,
// per host that has used it, the stack scheduling points (iopoints.go) →
// metered → audited → plain errors (plainNetwork) → simnet seen from that
// host.
type networkState struct {
	sim     *simnet.Network
	ctl     simnet.Controls              // what Context.Network hands out
	metrics *metered.Metrics             // shared by every host's stack
	stacks  map[netip.Addr]simrt.Network // looked up, never iterated
}

// initNetwork builds the network of a new runtime, which blocks and
// sleeps through ctx. Connections never survive a checkpoint, so a
// recovered runtime starts with an empty one.
func (rt *runtime) initNetwork(ctx *Context) {
	rt.network.sim = simnet.New(ctx, rt.rng, rt.auditor, rt.cfg.Network)
	rt.network.ctl = *simnet.ControlsOf(rt.network.sim)
	rt.network.metrics = metered.NewMetrics(rt.sh.Registry.Registerer())
	rt.network.stacks = make(map[netip.Addr]simrt.Network)
}

// netStack returns the stack for host, building it on first use. It is
// the one place that fixes the order of the layers (see networkState).
func (rt *runtime) netStack(host netip.Addr) simrt.Network {
	if !host.IsValid() {
		host = simnet.Loopback
	}
	n := rt.network.stacks[host]
	if n == nil {
		points := func(n simrt.Network) simrt.Network { return withNetworkPoints(n, rt) }
		dev := plainNetwork{rt.network.sim.Host(host)}
		n = shell.NetworkStack(dev, rt.auditor, rt.network.metrics, points)
		rt.network.stacks[host] = n
	}
	return n
}

// plainNetwork is the device under the audited layer of a stack: it gives
// the error of a failed Bind or Dial (a *simnet.OpError, which names the
// address and the reason) the text of the bare error it wraps ("bind
// failed", "connection failed"), the only text the audit records, so that
// the audit state does not depend on how errors are worded. Context.Bind
// and Dial return the full error again (see fullError).
type plainNetwork struct{ inner simrt.Network }

var _ simrt.Network = plainNetwork{}

// Bind implements simrt.Network.Bind.
func (n plainNetwork) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	l, err := n.inner.Bind(addr)
	return l, plain(err)
}

// Dial implements simrt.Network.Dial.
func (n plainNetwork) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	si, st, err := n.inner.Dial(addr)
	return si, st, plain(err)
}

// plainError is a *simnet.OpError with the text of the error it wraps.
type plainError struct{ op *simnet.OpError }

func (e plainError) Error() string { return e.op.Err.Error() }
func (e plainError) Unwrap() error { return e.op }

// plain returns err as a plainError if it is a *simnet.OpError.
func plain(err error) error {
	if op, ok := err.(*simnet.OpError); ok {
		return plainError{op}
	}
	return err
}

// fullError returns the *simnet.OpError of a plainError that crossed the
// stack, and any other error as it is.
func fullError(err error) error {
	if p, ok := err.(plainError); ok {
		return p.op
	}
	return err
}

// Bind implements simrt.Network.Bind on the simulated network, with
// production's rules (see simnet.Network.Bind): a bound address is taken
// until its listener is closed; 0.0.0.0:p takes port p on every address of
// the host, and a dial to 127.0.0.1:p reaches it. Port 0
// takes the next free port of [simnet.AssignStart, simnet.AssignEnd) on
// that address, and the listener's Addr reports it. A failure
// wraps simrt.ErrBindFailed and names the address and the reason.
func (c *Context) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	c.rt.check()
	if c.proc != nil && c.proc.dead {
		return nil, c.proc.deadErr("bind")
	}
	l, err := c.rt.netStack(c.host).Bind(addr)
	if err != nil {
		return nil, fullError(err)
	}
	return l, nil
}

// Dial implements simrt.Network.Dial on the simulated network. The
// connection originates from the context's host (see WithHost), 127.0.0.1
// by default, and crosses the links between that host and addr's. A
// failure wraps simrt.ErrConnectionFailed (or is simrt.ErrTimeout, see
// simnet.Config.DialTimeout) and names the address and the reason.
func (c *Context) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	c.rt.check()
	if c.proc != nil && c.proc.dead {
		return nil, nil, c.proc.deadErr("dial")
	}
	si, st, err := c.rt.netStack(c.host).Dial(addr)
	if err != nil {
		return nil, nil, fullError(err)
	}
	return si, st, nil
}

// WithHost returns a context that acts as the simulated host ip: its dials
// originate from ip, and contexts derived from it (Child, WithAttribute,
// the contexts of tasks it spawns) act as ip too. On a node's context it
// changes only the address: the context still acts for the node (its
// storage, clock and lifecycle). It declares ip a host of the simulated
// network, so that faults may name it at once (see
// simnet.Network.Partition). It panics if ip is not a valid address.
func (c *Context) WithHost(ip netip.Addr) *Context {
	c.rt.check()
	if !ip.IsValid() {
		panic("deterministic.Context.WithHost: invalid address")
	}
	c.rt.netStack(ip.Unmap()) // declares the host
	d := &Context{rt: c.rt, task: c.task, host: ip.Unmap(), proc: c.proc}
	shell.Init(&d.shellContext, shell.ScopeOf(&c.shellContext), shell.NodeOf(&c.shellContext))
	return d
}

// Host returns the simulated host the context acts as: 127.0.0.1 unless
// set with WithHost.
func (c *Context) Host() netip.Addr {
	if !c.host.IsValid() {
		return simnet.Loopback
	}
	return c.host
}

// Network returns the simulated network's controls: links (latency,
// jitter, bandwidth, loss, resets), partitions and clogs. Every change is
// recorded by the auditor and takes effect at once. The controls cannot
// bind or dial: connections go through the context (Bind, Dial), whose
// stack audits and meters them.
func (c *Context) Network() *simnet.Controls {
	c.rt.check()
	return &c.rt.network.ctl
}
