package nemesis

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
)

// fakeCluster records what the nemesis does and keeps the state it
// changes, so that a test can check both.
type fakeCluster struct {
	now   func() time.Duration
	calls []string
	nodes []*fakeNode
	cut   map[[2]netip.Addr]bool
	clog  map[[2]netip.Addr]bool
	iso   map[netip.Addr]bool
	links map[[2]netip.Addr]simnet.Link
	// onKill runs after every successful Kill or PowerOff.
	onKill func(n *fakeNode)
}

type fakeNode struct {
	c      *fakeCluster
	name   string
	host   netip.Addr
	status Status
	offset time.Duration
	drift  float64
	skew   time.Duration
	disk   faulty.DiskFault
	incarn int
	// jumpErr, when set, is what JumpClock returns, changing nothing.
	jumpErr error
}

func newFake(n int) *fakeCluster {
	c := &fakeCluster{cut: map[[2]netip.Addr]bool{}, clog: map[[2]netip.Addr]bool{},
		iso: map[netip.Addr]bool{}, links: map[[2]netip.Addr]simnet.Link{}}
	for i := range n {
		c.nodes = append(c.nodes, &fakeNode{c: c, name: fmt.Sprintf("n%d", i+1),
			host: netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), incarn: 1})
	}
	return c
}

func (c *fakeCluster) cluster() Cluster {
	var ns []Node
	for _, n := range c.nodes {
		ns = append(ns, n)
	}
	return Cluster{Nodes: ns, Net: c}
}

func (c *fakeCluster) record(format string, args ...any) {
	at := time.Duration(0)
	if c.now != nil {
		at = c.now()
	}
	c.calls = append(c.calls, fmt.Sprintf("%v ", at)+fmt.Sprintf(format, args...))
}

// clean reports what is not healed, or "".
func (c *fakeCluster) clean() string {
	var bad []string
	for k, v := range c.cut {
		if v {
			bad = append(bad, fmt.Sprintf("cut %v", k))
		}
	}
	for k, v := range c.clog {
		if v {
			bad = append(bad, fmt.Sprintf("clog %v", k))
		}
	}
	for k, v := range c.iso {
		if v {
			bad = append(bad, fmt.Sprintf("isolated %v", k))
		}
	}
	for k, v := range c.links {
		if v != (simnet.Link{}) {
			bad = append(bad, fmt.Sprintf("link %v %v", k, v))
		}
	}
	for _, n := range c.nodes {
		if n.status != Up || n.offset != 0 || n.drift != 0 || n.skew != 0 || n.disk != (faulty.DiskFault{}) {
			bad = append(bad, fmt.Sprintf("node %s: %v offset %v drift %v skew %v disk %+v", n.name, n.status, n.offset, n.drift, n.skew, n.disk))
		}
	}
	sort.Strings(bad)
	return strings.Join(bad, "\n")
}

func (c *fakeCluster) Cut(a, b netip.Addr) error {
	c.record("cut %v %v", a, b)
	c.cut[[2]netip.Addr{a, b}] = true
	return nil
}
func (c *fakeCluster) Heal(a, b netip.Addr) error {
	c.record("heal %v %v", a, b)
	if !c.cut[[2]netip.Addr{a, b}] {
		return fmt.Errorf("heal of a link not cut")
	}
	delete(c.cut, [2]netip.Addr{a, b})
	return nil
}
func (c *fakeCluster) Isolate(h netip.Addr) error {
	c.record("isolate %v", h)
	c.iso[h] = true
	return nil
}
func (c *fakeCluster) Rejoin(h netip.Addr) error {
	c.record("rejoin %v", h)
	delete(c.iso, h)
	return nil
}
func (c *fakeCluster) Clog(a, b netip.Addr) error {
	c.record("clog %v %v", a, b)
	c.clog[[2]netip.Addr{a, b}] = true
	return nil
}
func (c *fakeCluster) Release(a, b netip.Addr) error {
	c.record("release %v %v", a, b)
	delete(c.clog, [2]netip.Addr{a, b})
	return nil
}
func (c *fakeCluster) SetLink(a, b netip.Addr, l simnet.Link) error {
	c.record("link %v %v %v", a, b, l)
	c.links[[2]netip.Addr{a, b}] = l
	return nil
}

// partitioned reports whether some link from or to h is cut.
func (c *fakeCluster) partitioned(h netip.Addr) bool {
	for k, v := range c.cut {
		if v && (k[0] == h || k[1] == h) {
			return true
		}
	}
	return c.iso[h]
}

func (n *fakeNode) Name() string        { return n.name }
func (n *fakeNode) Host() netip.Addr    { return n.host }
func (n *fakeNode) Status() Status      { return n.status }
func (n *fakeNode) Skew() time.Duration { return n.skew + n.offset }
func (n *fakeNode) down(what string) error {
	n.c.record("%s %s", what, n.name)
	if n.status != Up && n.status != Paused {
		return fmt.Errorf("%s %s: node is %v", what, n.name, n.status)
	}
	n.status = Down
	if n.c.onKill != nil {
		n.c.onKill(n)
	}
	return nil
}
func (n *fakeNode) Kill() error     { return n.down("kill") }
func (n *fakeNode) PowerOff() error { return n.down("poweroff") }
func (n *fakeNode) Restart() error {
	n.c.record("restart %s", n.name)
	if n.status != Down {
		return fmt.Errorf("restart %s: node is %v", n.name, n.status)
	}
	n.status, n.incarn = Up, n.incarn+1
	return nil
}
func (n *fakeNode) Pause(d time.Duration) error {
	n.c.record("pause %s", n.name)
	if n.status != Up {
		return fmt.Errorf("pause %s: node is %v", n.name, n.status)
	}
	n.status = Paused
	return nil
}
func (n *fakeNode) Resume() error {
	n.c.record("resume %s", n.name)
	if n.status != Paused {
		return fmt.Errorf("resume %s: node is %v", n.name, n.status)
	}
	n.status = Up
	return nil
}
func (n *fakeNode) SetClock(offset time.Duration, drift float64) error {
	n.c.record("clock %s %v %v", n.name, offset, drift)
	n.offset, n.drift = offset, drift
	if drift != 0 {
		n.skew += 7 * time.Millisecond // as if the drift had run for a while
	}
	return nil
}
func (n *fakeNode) JumpClock(d time.Duration) error {
	n.c.record("jump %s %v", n.name, d)
	if n.jumpErr != nil {
		return n.jumpErr
	}
	n.skew += d
	return nil
}
func (n *fakeNode) SetDiskFault(f faulty.DiskFault) {
	n.c.record("disk %s %+v", n.name, f)
	n.disk = f
}
func (n *fakeNode) Tasks() []deterministic.TaskState {
	if n.status == Down {
		return nil
	}
	return []deterministic.TaskState{{ID: uint64(n.incarn), Name: n.name + "/main", On: "receive on chan made at fake.go:1"}}
}
