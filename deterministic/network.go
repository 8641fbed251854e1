package deterministic

// Placeholder wiring until the simulated network (issue 4) lands in this
// file. The network engineer owns this file and replaces everything in it;
// the executor relies only on: type networkState (a field of runtime) and
// (*runtime).initNetwork() called when a runtime is built. Context has a
// host field (netip.Addr) that Child and spawn copy.

import (
	"net/netip"

	"github.com/simrt/simrt"
)

type networkState struct{}

func (rt *runtime) initNetwork() {}

// Bind implements simrt.Network.Bind.
func (c *Context) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	return nil, simrt.ErrBindFailed
}

// Dial implements simrt.Network.Dial.
func (c *Context) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	return nil, nil, simrt.ErrConnectionFailed
}
