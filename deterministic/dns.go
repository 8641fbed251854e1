package deterministic

import (
	"fmt"
	"net/netip"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/audit"
)

// encodeAddrs is the audited form of an optional address list.
func encodeAddrs(addrs []netip.Addr, present bool) []byte {
	if !present {
		return []byte{0}
	}
	b := []byte{1}
	for _, a := range addrs {
		ab, _ := a.MarshalBinary()
		b = append(b, byte(len(ab)))
		b = append(b, ab...)
	}
	return b
}

// RegisterHost sets the addresses Resolve returns for host; nil addrs
// removes the entry. The table survives FromCheckpoint. It fails, changing
// nothing, if an address is invalid (the zero netip.Addr).
func (c *Context) RegisterHost(host string, addrs []netip.Addr) error {
	c.rt.check()
	for i, a := range addrs {
		if !a.IsValid() {
			return fmt.Errorf("deterministic.RegisterHost(%q): address %d is invalid", host, i)
		}
	}
	c.rt.auditor.Event(audit.ResolverRegister, []byte(host), encodeAddrs(addrs, addrs != nil))
	if addrs == nil {
		delete(c.rt.dns, host)
		return nil
	}
	c.rt.dns[host] = append([]netip.Addr(nil), addrs...)
	return nil
}

// Resolve implements simrt.Resolver from the table set with RegisterHost.
func (c *Context) Resolve(host string) ([]netip.Addr, error) {
	c.rt.check()
	addrs, ok := c.rt.dns[host]
	c.rt.auditor.Event(audit.Resolve, []byte(host), encodeAddrs(addrs, ok))
	if !ok {
		return nil, &simrt.ResolveError{Host: host}
	}
	return append([]netip.Addr(nil), addrs...), nil
}
