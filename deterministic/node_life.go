package deterministic

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/simrt/simrt/telemetry/audit"
)

// pauseState is what a paused node holds back: its tasks that became ready
// and the AfterFunc callbacks of its contexts that came due, each in the
// order it was held.
type pauseState struct {
	tasks []*task
	funcs []func()
	timer *timer // the end of a Pause(d > 0)
}

func (n *Node) stateErr(op string) error {
	return fmt.Errorf("deterministic: %s of node %s, which is %v: %w", op, n.cfg.Name, n.state, ErrNodeState)
}

// Kill kills the node's process, as kill -9 does: its tasks are aborted
// (they unwind, and any operation they still try fails with an error
// wrapping simrt.ErrClosed), its connections are reset for the peers (see
// simnet.Network.ResetHost), and its listeners close and free their
// addresses. Its disk keeps every write handed to it: unsynced writes stay
// readable by the next process and pending for a later PowerOff, as in the
// page cache. It fails unless the node is running or paused.
func (n *Node) Kill() error {
	n.rt.check()
	if n.state != NodeRunning && n.state != NodePaused {
		return n.stateErr("Kill")
	}
	n.event("kill")
	n.rt.nodes.counts.kill++
	n.teardown()
	n.state = NodeKilled
	return nil
}

// PowerOff cuts the node's power: as Kill, and then its disk crashes: the
// unsynced writes are resolved by its storage fault configuration (lost, or
// kept in part under its retention policy) and the page cache is gone. It
// fails if the node is already off.
func (n *Node) PowerOff() error {
	n.rt.check()
	if n.state == NodeOff {
		return n.stateErr("PowerOff")
	}
	n.event("power_off")
	n.rt.nodes.counts.powerOff++
	if !n.inc.dead {
		n.teardown()
	}
	if err := n.disk.st.fault.Crash(); err != nil {
		return fmt.Errorf("deterministic: PowerOff of node %s: %w", n.cfg.Name, err)
	}
	n.disk.st.mem.DropPageCache()
	n.state = NodeOff
	return nil
}

// Restart starts a new process of the node (Incarnation one more) that runs
// Main on what its disk kept. A node whose Main returned is torn down first
// (its leftover tasks aborted, as by Kill). It fails if the node is running
// or paused.
func (n *Node) Restart() error {
	n.rt.check()
	if n.state == NodeRunning || n.state == NodePaused {
		return n.stateErr("Restart")
	}
	if n.rt.closing {
		return fmt.Errorf("deterministic: Restart of node %s while the run ends: %w", n.cfg.Name, ErrNodeState)
	}
	if !n.inc.dead {
		n.teardown()
	}
	n.event("restart")
	n.start()
	return nil
}

// teardown ends the current process: its tasks aborted, its connections
// and listeners reset, its open blobs closed into the page cache, as after
// a kill (PowerOff then drops the cache).
func (n *Node) teardown() {
	rt := n.rt
	inc := n.inc
	inc.dead = true
	n.unpause()
	inc.sup.Abort()
	rt.network.sim.ResetHost(n.cfg.Host)
	inc.stor.closeAll()
}

// Pause stops the node's world for d of global time (until Resume when d
// <= 0), like a long GC pause, SIGSTOP or a VM migration: its tasks do not
// run and the timers of its contexts do not fire (they fire late on resume,
// at once if due); its connections stay open and bytes sent to it queue in
// the network as usual. It fails unless the node is running.
func (n *Node) Pause(d time.Duration) error {
	n.rt.check()
	if n.state != NodeRunning {
		return n.stateErr("Pause")
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(d))
	n.rt.auditor.Event(audit.Node, []byte(n.cfg.Name), []byte("pause"), b[:])
	n.state = NodePaused
	n.rt.nodes.paused++
	n.rt.nodes.counts.pause++
	if d > 0 {
		if at := addTime(n.rt.now, d); at < never {
			n.paused.timer = n.rt.timers.add(at, nil, func() {
				n.paused.timer = nil
				if n.state == NodePaused {
					n.event("resume")
					n.unpause()
					n.state = NodeRunning
				}
			})
		}
	}
	return nil
}

// Resume ends a pause: the node's held tasks run again, in the order they
// were held, and its held timers fire. It fails unless the node is paused.
func (n *Node) Resume() error {
	n.rt.check()
	if n.state != NodePaused {
		return n.stateErr("Resume")
	}
	n.event("resume")
	n.unpause()
	n.state = NodeRunning
	return nil
}

// unpause releases what a pause holds; it does nothing on a node that is
// not paused. The caller sets the new state.
func (n *Node) unpause() {
	if n.state != NodePaused {
		return
	}
	rt := n.rt
	rt.nodes.paused--
	n.state = NodeRunning // so that the released tasks are not held again
	if tm := n.paused.timer; tm != nil {
		tm.Stop()
		n.paused.timer = nil
	}
	for i, t := range n.paused.tasks {
		n.paused.tasks[i] = nil
		if !t.finished {
			rt.ready = append(rt.ready, t) // still queued since it was held
		}
	}
	n.paused.tasks = n.paused.tasks[:0]
	for i, f := range n.paused.funcs {
		n.paused.funcs[i] = nil
		rt.timers.add(rt.now, nil, f)
	}
	n.paused.funcs = n.paused.funcs[:0]
}

// hold keeps t from running if it belongs to a paused node, and reports
// whether it did. The executor calls it only while some node is paused.
func (rt *runtime) hold(t *task) bool {
	p := t.proc
	if p == nil || p.dead || p.n.state != NodePaused {
		return false
	}
	p.n.paused.tasks = append(p.n.paused.tasks, t)
	return true
}

// afterFunc is AfterFunc of a node context: d is local, the callback is
// held while the node is paused and dropped once its process is dead.
func (p *incarnation) afterFunc(d time.Duration, f func()) *nodeTimer {
	nt := &nodeTimer{}
	var g func()
	g = func() {
		switch {
		case nt.stopped:
		case p.dead:
			nt.fired = true
		case p.n.state == NodePaused:
			p.n.paused.funcs = append(p.n.paused.funcs, g)
		default:
			nt.fired = true
			f()
		}
	}
	nt.tm = p.n.rt.afterFunc(p.global(d), nil, g)
	return nt
}

// nodeTimer is the timer of a node context's AfterFunc: it may be held
// and rescheduled by a pause, so it stops itself rather than one heap entry.
type nodeTimer struct {
	tm             *timer
	stopped, fired bool
}

// Stop implements rtapi.Timer.
func (t *nodeTimer) Stop() bool {
	if t.stopped || t.fired {
		return false
	}
	t.stopped = true
	t.tm.Stop()
	return true
}
