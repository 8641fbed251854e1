package deterministic

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/internal/supervise"
	"github.com/simrt/simrt/rtapi"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/metrics"
)

// NodeConfig describes a simulated machine (see Context.AddNode).
type NodeConfig struct {
	// Name identifies the node: unique in the run, matching
	// [a-z][a-z0-9_]* and not starting with "runtime" (the prefix the
	// runtime's own metrics use). It is the node's task-name prefix and its
	// node attribute.
	Name string
	// Host is the node's address: every connection its tasks dial leaves
	// from it, and its listeners bind there. Unique in the run, valid, and
	// neither loopback nor unspecified.
	Host netip.Addr
	// Main is the node's program, run as a task at AddNode and again at
	// every Restart, like a process's main. Required.
	Main func(ctx simrt.Context)
	// Clock is the node's clock at start; the zero value is the global
	// clock. An offset that puts the clock out of simulated time (before
	// the Unix epoch, or at or after its end) is refused (ErrClockRange).
	Clock NodeClock
	// StorageFaults is the node's storage fault configuration; nil means
	// a copy of the runtime's configuration as it is at AddNode
	// (Config.StorageFaults unless changed through StorageFaultConfig), or,
	// for a disk taken back from a Checkpoint, the configuration it had.
	StorageFaults *faulty.Config
}

// NodeState is where a node is in its lifecycle.
type NodeState uint8

//go:generate stringer -type=NodeState -linecomment -output=nodestate_string.go

const (
	// NodeRunning is a node whose process runs.
	NodeRunning NodeState = iota + 1 // running
	// NodePaused is a running node stopped by Pause: its tasks and timers
	// wait for Resume.
	NodePaused // paused
	// NodeKilled is a node whose process was killed; its disk kept every
	// write handed to it.
	NodeKilled // killed
	// NodeOff is a node that lost power: its disk kept what the storage
	// fault model let survive.
	NodeOff // off
	// NodeExited is a node whose Main returned.
	NodeExited // exited
)

// ErrNodeState is wrapped by the error of a lifecycle operation called in a
// state that does not allow it (a Restart of a running node, say).
var ErrNodeState = errors.New("deterministic: operation not allowed in the node's state")

// Node is a simulated machine of a run: a process (its Main and every task
// spawned below it), a host address, a disk, and a clock. Make it with
// Context.AddNode. Its methods may be called from any task of the run, and
// from AfterFunc callbacks.
type Node struct {
	rt    *runtime
	cfg   NodeConfig
	state NodeState
	inc   *incarnation // the current (or last) process
	incs  int

	disk   nodeDisk
	clock  clockState
	paused pauseState
}

// incarnation is one run of a node's process: Main from a start or restart
// until the process dies. Contexts carry it, so that a task of a dead
// process (unwinding its defers) cannot act for the node any more.
type incarnation struct {
	n    *Node
	num  int
	dead bool
	sup  *supervise.Node // the process's supervision subtree
	stor *procStorage    // the process's view of the node's disk
}

// nodeDisk is a node's storage: its stack, which outlives processes as a
// disk outlives crashes.
type nodeDisk struct {
	st storageState
}

// nodesState is the runtime's nodes; empty in a run without nodes.
type nodesState struct {
	list   []*Node
	byName map[string]*Node     // looked up, never iterated
	byHost map[netip.Addr]*Node // looked up, never iterated
	paused int                  // nodes paused now: the executor checks it first
	disks  map[string]storageCheckpoint
	counts struct{ kill, powerOff, pause, clock uint64 } // lifecycle faults, for Faults
}

// nodeFaults adds the nodes' fault counts, and their disks', to sum.
func (rt *runtime) nodeFaults(sum *fault.Counts) {
	c := rt.nodes.counts
	sum.Add(fault.NodeKill, c.kill)
	sum.Add(fault.NodePowerOff, c.powerOff)
	sum.Add(fault.NodePause, c.pause)
	sum.Add(fault.NodeClock, c.clock)
	for _, n := range rt.nodes.list {
		sum.AddAll(n.disk.st.fault.Faults())
	}
}

// AddNode adds a node to the run and starts its Main as a task. It may be
// called from any task, at any time of the run. It fails, naming the field,
// on an invalid configuration: a bad or duplicate name or host, a nil Main,
// a clock drift of 0.5 or more. In a run resumed from a Checkpoint, a node
// with the name of a node of the earlier run gets its disk back.
func (c *Context) AddNode(cfg NodeConfig) (*Node, error) {
	c.rt.check()
	rt := c.rt
	if rt.closing {
		return nil, simrt.ErrClosed
	}
	if err := validName(cfg.Name); err != nil {
		return nil, err
	}
	if rt.nodes.byName[cfg.Name] != nil {
		return nil, fmt.Errorf("deterministic.AddNode: duplicate node name %q", cfg.Name)
	}
	h := cfg.Host.Unmap()
	if !h.IsValid() || h.IsLoopback() || h.IsUnspecified() {
		return nil, fmt.Errorf("deterministic.AddNode: node %q: host %v must be a valid address, neither loopback nor unspecified", cfg.Name, cfg.Host)
	}
	if o := rt.nodes.byHost[h]; o != nil {
		return nil, fmt.Errorf("deterministic.AddNode: node %q: host %v is already node %q's", cfg.Name, h, o.cfg.Name)
	}
	if cfg.Main == nil {
		return nil, fmt.Errorf("deterministic.AddNode: node %q: nil Main", cfg.Name)
	}
	if err := cfg.Clock.validateAt(rt.now); err != nil {
		return nil, fmt.Errorf("deterministic.AddNode: node %q: %w", cfg.Name, err)
	}
	cfg.Host = h
	faults := rt.cfg.StorageFaults
	if rt.storage.fault != nil {
		faults = *rt.storage.fault.Config()
	}
	if cfg.StorageFaults != nil {
		faults = *cfg.StorageFaults
	}
	n := &Node{rt: rt, cfg: cfg}
	mem := memory.New()
	if d, ok := rt.nodes.disks[cfg.Name]; ok {
		mem = memory.Restore(d.snap)
		if cfg.StorageFaults == nil {
			faults = d.faults
		}
		delete(rt.nodes.disks, cfg.Name)
	}
	// The node's storage metrics carry its name, as its tasks' do.
	reg := prometheus.WrapRegistererWithPrefix(cfg.Name+"_",
		prometheus.WrapRegistererWith(prometheus.Labels{"node": cfg.Name}, rt.sh.Registry.Registerer()))
	n.disk.st = storageStack(rt, mem, rt.rng, faults, rt.auditor, reg)
	rt.wireFaulty(n.disk.st.fault, cfg.Name) // disk faults: audited, slept, dated (disk.go)
	rt.netStack(h)                           // declares the host, so faults may name it at once
	n.clock.init(rt.now, cfg.Clock)
	if rt.nodes.byName == nil {
		rt.nodes.byName = make(map[string]*Node)
		rt.nodes.byHost = make(map[netip.Addr]*Node)
	}
	rt.nodes.list = append(rt.nodes.list, n)
	rt.nodes.byName[cfg.Name] = n
	rt.nodes.byHost[h] = n
	n.event("add")
	n.start()
	return n, nil
}

// validName reports whether name is a valid node name: [a-z][a-z0-9_]*,
// not starting with the runtime's reserved metric prefix. It is checked in
// full before AddNode changes anything, since the name becomes a task label
// (metrics.ChildLabel) and a metric prefix.
func validName(name string) error {
	if name == "" {
		return errors.New("deterministic.AddNode: Name: empty node name")
	}
	if b := name[0]; b < 'a' || b > 'z' {
		return fmt.Errorf("deterministic.AddNode: Name %q: must start with [a-z]", name)
	}
	for i := 1; i < len(name); i++ {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
			return fmt.Errorf("deterministic.AddNode: Name %q: only [a-z0-9_] allowed", name)
		}
	}
	if strings.HasPrefix(name, metrics.Prefix) {
		return fmt.Errorf("deterministic.AddNode: Name %q: must not start with %q, reserved for the runtime's metrics", name, metrics.Prefix)
	}
	return nil
}

// start runs a new incarnation of the node's Main.
func (n *Node) start() {
	rt := n.rt
	n.incs++
	inc := &incarnation{n: n, num: n.incs, sup: rt.sh.Tree.Root().Child()}
	inc.stor = newProcStorage(inc, n.disk.st.stack)
	n.inc = inc
	n.state = NodeRunning
	ctx := &Context{rt: rt, host: n.cfg.Host, proc: inc}
	shell.Init(&ctx.shellContext, rt.sh.NewScope(supervise.ChildName("", n.cfg.Name), supervise.WithAttr(nil, "node", n.cfg.Name)), inc.sup)
	main := n.cfg.Main
	ctx.SpawnTask(rtapi.TaskFuncs{RunFunc: func(c rtapi.Plumbing) { main(c.(simrt.Context)) }, DoneFunc: func(error) {
		if n.inc == inc && !inc.dead && (n.state == NodeRunning || n.state == NodePaused) {
			n.state = NodeExited
			n.event("exit")
		}
	}})
}

// event records a lifecycle operation on the node.
func (n *Node) event(op string) {
	n.rt.auditor.Event(audit.Node, []byte(n.cfg.Name), []byte(op))
}

// Node returns the node the context acts for, or nil outside nodes.
func (c *Context) Node() *Node {
	if c.proc == nil {
		return nil
	}
	return c.proc.n
}

// NodeByName returns the run's node called name, or nil if there is none.
func (c *Context) NodeByName(name string) *Node {
	c.rt.check()
	return c.rt.nodes.byName[name]
}

// Nodes returns the run's nodes in AddNode order.
func (c *Context) Nodes() []*Node {
	c.rt.check()
	return append([]*Node(nil), c.rt.nodes.list...)
}

// Name returns the node's name.
func (n *Node) Name() string { return n.cfg.Name }

// Host returns the node's address.
func (n *Node) Host() netip.Addr { return n.cfg.Host }

// State returns where the node is in its lifecycle.
func (n *Node) State() NodeState { return n.state }

// Incarnation returns the number of the node's current (or last) process:
// 1 from AddNode, one more at every Restart.
func (n *Node) Incarnation() int { return n.incs }

// Storage returns the controls of the node's disk: its live fault
// configuration (Config), its disk fault (SetDiskFault) and pending crash
// journal. It outlives the node's processes. Blobs are opened through the
// node's contexts, never through the controls.
func (n *Node) Storage() DiskControls { return DiskControls{n.disk.st.fault} }

// SetDiskFault switches the fault of the node's disk (see
// Context.SetDiskFault); the zero value heals it. The fault outlives the
// node's processes: a restarted process finds its disk as it was.
func (n *Node) SetDiskFault(f faulty.DiskFault) {
	n.rt.check()
	n.disk.st.fault.SetDiskFault(f)
}

// DiskFault returns the current fault of the node's disk.
func (n *Node) DiskFault() faulty.DiskFault { return n.disk.st.fault.DiskFault() }

// Tasks returns the live tasks of the node's current process, in id order,
// with what each parked one waits on (see Context.Tasks).
func (n *Node) Tasks() []TaskState {
	n.rt.check()
	var out []TaskState
	for t := n.rt.live.head; t != nil; t = t.nextLive {
		if t.proc != n.inc {
			continue
		}
		out = append(out, n.rt.taskState(t))
	}
	return out
}

// String returns "name (host, state)".
func (n *Node) String() string {
	return fmt.Sprintf("%s (%v, %v)", n.cfg.Name, n.cfg.Host, n.state)
}

// deadErr is the error of an operation of a dead process.
func (p *incarnation) deadErr(op string) error {
	return fmt.Errorf("deterministic: %s by node %s incarnation %d, which is dead: %w", op, p.n.cfg.Name, p.num, simrt.ErrClosed)
}

// global is how long a local duration d of the node lasts in global time.
func (p *incarnation) global(d time.Duration) time.Duration { return p.n.clock.global(d) }
