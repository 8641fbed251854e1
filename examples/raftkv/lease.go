package main

import (
	"encoding/binary"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Leader leases, switched on by the lease bugs (bugSet.leases): a leader
// that a quorum confirmed recently serves reads from its own state, without
// a read index round. The leader renews its lease with a read index round
// at every heartbeat (and with every client read index round): a round
// issued at time t and confirmed by a quorum proves that every node of that quorum heard from
// this leader after t, and each of them refuses to vote for another
// candidate until its election timer, reset then, runs out (sticky votes,
// as raft's CheckQuorum gives). Another leader cannot be elected before
// t + (electionTicks-1)·tickInterval of the followers' clocks.
const (
	// leaseDuration is the time lease of bugLeaseNoDrift: the followers'
	// shortest sticky interval (a follower reset at r refuses votes until
	// its tenth tick, after r + 9 ticks). Safe only if every clock runs at
	// the same rate.
	leaseDuration = (electionTicks - 1) * tickInterval
	// leaseTicks is the lease of bugLeaseTicks, in the leader's ticks:
	// under half the followers' sticky interval, safe under ±30% drift.
	leaseTicks = 4
	// leaseRound marks the context of a lease renewal round.
	leaseRound = 'L'
	// maxRenewals bounds the renewal rounds awaiting confirmation.
	maxRenewals = 8
)

// lease is what the leader knows of its lease: the issue time and tick of
// the latest read index round a quorum confirmed, in the current term.
type lease struct {
	valid bool
	from  time.Time // on the leader's clock
	tick  uint64    // n.ticks at the issue
}

// renewal is a lease renewal round awaiting confirmation.
type renewal struct {
	tick uint64
	at   time.Time
}

// startRenewal starts a renewal round, on a leader's heartbeat tick.
func (n *node) startRenewal() {
	if !n.bugs.leases() || n.ticks%heartbeatTicks != 0 {
		return
	}
	if len(n.renewals) == maxRenewals {
		n.renewals = append(n.renewals[:0], n.renewals[1:]...)
	}
	n.renewals = append(n.renewals, renewal{tick: n.ticks, at: n.ctx.Now()})
	n.rn.ReadIndex(binary.BigEndian.AppendUint64([]byte{leaseRound}, n.ticks))
}

// noteRenewal renews the lease from a confirmed renewal round, once the
// node has applied up to its index; it reports whether rs was one.
func (n *node) noteRenewal(rs raft.ReadState) bool {
	if len(rs.RequestCtx) != 9 || rs.RequestCtx[0] != leaseRound {
		return false
	}
	tick := binary.BigEndian.Uint64(rs.RequestCtx[1:])
	for i, r := range n.renewals {
		if r.tick == tick {
			if n.applied >= rs.Index {
				n.renewLease(r.at, r.tick)
			}
			n.renewals = append(n.renewals[:0], n.renewals[i+1:]...)
			break
		}
	}
	return true
}

// refuseVote reports whether a vote (or pre-vote) request must be ignored:
// with leases, a node that has heard from a leader within its election
// timeout, or has just started and may have done so before, does not help
// another candidate depose it.
func (n *node) refuseVote(m *pb.Message) bool {
	if !n.bugs.leases() || m.GetFrom() == n.id {
		return false
	}
	switch m.GetType() {
	case pb.MsgVote, pb.MsgPreVote:
	default:
		return false
	}
	if n.state == raft.StateLeader {
		return true
	}
	return (n.lead != 0 || n.fresh) && n.idle < electionTicks
}

// leaseRead reports whether the leader may serve a read from its own state
// now, under its lease.
func (n *node) leaseRead() bool {
	if !n.bugs.leases() || n.state != raft.StateLeader || !n.lease.valid {
		return false
	}
	if n.bugs.has(bugLeaseTicks) {
		return n.ticks-n.lease.tick < leaseTicks
	}
	return n.ctx.Now().Sub(n.lease.from) < leaseDuration
}

// renewLease records a read index round issued at (from, tick) that a
// quorum confirmed while this node led.
func (n *node) renewLease(from time.Time, tick uint64) {
	if !n.bugs.leases() || n.state != raft.StateLeader {
		return
	}
	if !n.lease.valid || from.After(n.lease.from) {
		n.lease = lease{valid: true, from: from, tick: tick}
	}
}
