package simnet

import (
	"github.com/simrt/simrt/internal/netlimit"
)

// Receive memory. A stream's local buffer holds up to BufferSize bytes
// for free; beyond that (a Recv larger than BufferSize, whose bytes
// gather in local as they arrive) it takes from the receiving host's
// receive memory, of which Config.MaxRecvMemory bounds the total, per
// host, as production's tcp bounds it per process. The memory counts are
// guarded by the network's mutex.

// recvGrowth checks that a Recv of k bytes may pull what has arrived into
// the stream's local buffer: it returns the error to fail the Recv with if
// the pull would take the host's receive memory past MaxRecvMemory.
func (p *pipe) recvGrowth(k int) error {
	n := p.net
	if k <= n.bufSize {
		return nil
	}
	after := min(k, p.local.len()+p.shared.len())
	need := max(0, after-n.bufSize) - p.held
	if need <= 0 {
		return nil
	}
	used := n.recvHeld[p.to.Addr()]
	if used+need > n.cfg.MaxRecvMemory {
		return netlimit.RecvMemoryError("simnet: host "+p.to.Addr().String(), k, need, used, n.cfg.MaxRecvMemory)
	}
	return nil
}

// account sets what the stream's local buffer takes of its host's receive
// memory to what it holds now. Call it after local changes.
func (p *pipe) account() {
	held := max(0, p.local.len()-p.net.bufSize)
	if held == p.held {
		return
	}
	n := p.net
	host := p.to.Addr()
	n.recvHeld[host] += held - p.held
	if n.recvHeld[host] == 0 {
		delete(n.recvHeld, host)
	}
	p.held = held
}
