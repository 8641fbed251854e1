package audited

import (
	"net/netip"
	"sync"
)

// maxEndpoints bounds the cache of audited addresses: a program that binds
// or dials more distinct addresses than this pays one formatting per call
// for the others, as without the cache.
const maxEndpoints = 256

// endpoint is the audited form of one address, built once: its text and
// the field lists of the events about it, so that recording them formats
// and allocates nothing. Its slices are never modified once published
// (Recorder neither modifies nor retains fields).
type endpoint struct {
	at   netip.AddrPort
	addr []byte   // the address as text (AddrPort.String)
	only [][]byte // {addr}, in one
	one  [1][]byte
	// failed is {addr, error text} of the last failure recorded for the
	// address; a different error replaces it with a new list.
	failed [][]byte
}

// endpoints caches the endpoints of the addresses a Network binds and
// dials: the first few in a list searched in order (a host's stack in a
// simulation dials a handful of addresses, and a fresh runtime per seed
// would pay for a map it barely uses), the rest in a map, which is only
// looked up, never iterated.
type endpoints struct {
	mu     sync.Mutex
	list   [listedEndpoints]*endpoint
	listed int // list[:listed] is in use
	m      map[netip.AddrPort]*endpoint
}

// listedEndpoints is how many endpoints the list holds before the map.
const listedEndpoints = 8

// get returns the endpoint of a, building it on first use.
func (c *endpoints) get(a netip.AddrPort) *endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ep := range c.list[:c.listed] {
		if ep.at == a {
			return ep
		}
	}
	if ep := c.m[a]; ep != nil {
		return ep
	}
	f := addrField(a)
	ep := &endpoint{at: a, addr: f, one: [1][]byte{f}}
	ep.only = ep.one[:]
	switch {
	case c.listed < listedEndpoints:
		c.list[c.listed] = ep
		c.listed++
	case len(c.m) < maxEndpoints-listedEndpoints:
		if c.m == nil {
			c.m = make(map[netip.AddrPort]*endpoint)
		}
		c.m[a] = ep
	}
	return ep
}

// withError returns the fields {address, err's text} of a failure on ep.
// The same error text as the last one costs nothing.
func (c *endpoints) withError(ep *endpoint, err error) [][]byte {
	msg := err.Error()
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := ep.failed; f != nil && string(f[1]) == msg {
		return f
	}
	f := [][]byte{ep.addr, []byte(msg)}
	ep.failed = f
	return f
}
