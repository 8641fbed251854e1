package simnet

import (
	"net/netip"
	"slices"
	"strconv"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/telemetry/audit"
)

// ResetHost breaks every connection with an end at h and closes every
// listener bound at h, as the death of h's process does; it returns how
// many connections it reset. For the peers it is a TCP reset: bytes h sent
// that already arrived can still be received, then Recv fails with
// simrt.ErrRecvFailed; bytes still in flight from h are lost; a Send
// toward h fails with simrt.ErrSendFailed. h's own ends fail too (a stray
// task of the dead process gets errors, not data). Listeners close as with
// Close and their addresses are freed, so that a restarted process binds
// them again. The event is audited and counted as fault "host_reset".
func (n *Network) ResetHost(h netip.Addr) int {
	h = h.Unmap()
	n.mu.Lock()
	defer n.mu.Unlock()
	count := 0
	eff := n.newEffect(fault.HostReset, h, netip.Addr{}, Link{})
	for _, p := range n.pipes {
		q := p.peer
		if !p.alive() && !q.alive() || p.from.Addr() != h && p.to.Addr() != h || p.hostReset || q.hostReset {
			continue
		}
		count++
		eff.Resets++
		for _, d := range [2]*pipe{p, q} {
			eff.Dropped += uint64(len(d.flight) - d.head)
			d.hostReset = true
			switch {
			case d.from.Addr() == h && d.to.Addr() != h:
				d.senderDead()
			default:
				d.reset = true
				d.discard()
				d.recvq.NotifyAll()
				d.sendq.NotifyAll()
			}
		}
	}
	var addrs []netip.AddrPort
	for a := range n.listeners { // sorted below
		if a.Addr() == h {
			addrs = append(addrs, a)
		}
	}
	slices.SortFunc(addrs, netip.AddrPort.Compare)
	for _, a := range addrs {
		l := n.listeners[a]
		delete(n.listeners, a)
		l.closeLocked()
	}
	n.event(audit.HostReset, h.String(), strconv.Itoa(count), strconv.Itoa(len(addrs)))
	return count
}

// senderDead ends a pipe whose sending host died: what is in flight is
// lost, what arrived stays readable, and then Recv fails (the sink counts
// as gone). The dead sender's own Send fails.
func (p *pipe) senderDead() {
	p.dropFlight()
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.stopHold()
	p.sinkOpen = false
	p.recvq.NotifyAll()
	p.sendq.NotifyAll()
}
