package simnet

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// ErrNoEffect is the cause of the error of a fault that could affect
// nothing: one between addresses that no host, listener or connection uses
// (see Network.Partition).
var ErrNoEffect = errors.New("fault affects nothing")

// The rule for faults that could do nothing. An address is known once it
// is a host some view was built for (Host, which the simulator's contexts
// call for their host, WithHost and nodes included), the address of a
// listener (Bind), or an end of a connection or dial attempt. A host
// originates once a view was built for it or a dial left from it: only such
// hosts open connections, so a fault between two addresses that merely
// listen cuts nothing. Cut, Partition and Clog between a and b, and SetLink
// of a link that is not perfect, fail with an error wrapping ErrNoEffect
// unless both a and b are known and at least one of them originates;
// Isolate(h) fails unless h is known. A fault that fails changes nothing
// and is neither recorded nor counted.

// declare marks ip as a known host that originates. Called with mu held.
func (n *Network) declare(ip netip.Addr) {
	h := n.host(ip)
	h.known, h.origin = true, true
}

// mention marks ip as known (a listener's address or a connection's end).
// Called with mu held.
func (n *Network) mention(ip netip.Addr) {
	n.host(ip).known = true
}

func (n *Network) known(ip netip.Addr) bool {
	h := n.hosts[ip]
	return h != nil && h.known
}

func (n *Network) originates(ip netip.Addr) bool {
	h := n.hosts[ip]
	return h != nil && h.origin
}

// checkPair returns the error of a fault named op between a and b that
// could affect nothing, or nil. Called with mu held.
func (n *Network) checkPair(op string, a, b netip.Addr) error {
	call := fmt.Sprintf("simnet: %s(%v, %v)", op, a, b)
	var unknown []string
	for _, ip := range []netip.Addr{a, b} {
		if !n.known(ip) && !slices.Contains(unknown, ip.String()) {
			unknown = append(unknown, ip.String())
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%s: %w: no host, listener or connection uses %s; declare the hosts "+
			"first (Context.WithHost or a node in the simulator, Network.Host on a bare simnet)",
			call, ErrNoEffect, strings.Join(unknown, " or "))
	}
	if n.originates(a) || n.originates(b) {
		return nil
	}
	from := "no host has dialed yet"
	if o := n.origins(); len(o) > 0 {
		from = "every connection so far comes from " + strings.Join(o, ", ")
	}
	return fmt.Errorf("%s: %w: %v and %v only listen, neither is a host that dials (%s); "+
		"make each process dial from its own address with Context.WithHost(ip) or run it as a node "+
		"(Network.Host(ip) on a bare simnet)", call, ErrNoEffect, a, b, from)
}

// checkHost returns the error of a fault named op around h that could
// affect nothing, or nil. Called with mu held.
func (n *Network) checkHost(op string, h netip.Addr) error {
	if n.known(h) {
		return nil
	}
	return fmt.Errorf("simnet: %s(%v): %w: no host, listener or connection uses %v; declare the host "+
		"first (Context.WithHost or a node in the simulator, Network.Host on a bare simnet)",
		op, h, ErrNoEffect, h)
}

// origins lists the hosts that originate, sorted. Called with mu held.
func (n *Network) origins() []string {
	var ips []netip.Addr
	for ip, h := range n.hosts { // sorted below
		if h.origin {
			ips = append(ips, ip)
		}
	}
	slices.SortFunc(ips, netip.Addr.Compare)
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}
