package main

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/simrt/simrt"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Leader leases, switched on by the lease bugs (bugSet.leases): a leader
// that a quorum confirmed recently serves reads from its own state, without
// a read index round. The leader renews its lease with a read index round
// at every heartbeat (and with every client read index round): a round
// issued at time t and confirmed by a quorum proves that every node of that
// quorum heard from this leader after t, and each of them refuses to vote
// for any candidate until electionTicks of its own ticks have passed since
// it last heard from a leader (sticky votes, as raft's CheckQuorum gives;
// refuseVote). Another leader cannot be elected before
// t + (electionTicks-1)·tickInterval of the followers' clocks.
//
// Two details carry the argument. The t of a round is the issue of the
// round raft confirmed: a read's context is its client and sequence number,
// which a retry keeps, so a ReadState names a read, not a round; raft
// confirms a leader's rounds in the order they were issued, and the leader
// keeps its rounds in that order (issueRead, confirmedRead) to find the
// round a ReadState confirms. (Taking the issue of the read's latest try
// once let a leader cut off from a quorum for 0.7 s renew its lease from
// a retry when raft had confirmed the first try, and serve lease reads
// after a new leader was elected.) And a node's votes stay refused after
// it last heard from a leader whatever its current leader is: a follower
// whose leader became unknown (a message of a higher term) right after it
// answered a heartbeat has still answered it.
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
	// maxRounds bounds the client read rounds awaiting confirmation that
	// confirmedRead can match: a round beyond it renews no lease.
	maxRounds = 64
)

// lease is what the leader knows of its lease: the issue time and tick of
// the latest read index round a quorum confirmed, in the current term.
type lease struct {
	valid bool
	from  time.Time // on the leader's clock
	tick  uint64    // n.ticks at the issue
}

// issue is when a read index round began: on the node's clock, in its
// ticks, and the term the node led then (0 if it did not lead). Only a
// round this node issued as leader of its current term renews its lease.
type issue struct {
	at   time.Time
	tick uint64
	term uint64
}

// renewal is a lease renewal round awaiting confirmation; its context is
// leaseRound and the tick, unique within an incarnation.
type renewal struct {
	issue
}

// now returns the issue of a round that begins now.
func (n *node) now() issue {
	is := issue{at: n.ctx.Now(), tick: n.ticks}
	if n.bugs.leases() && n.state == raft.StateLeader {
		is.term = n.rn.BasicStatus().GetTerm()
	}
	return is
}

// round is a read index round of a client's read, issued by this node as
// leader of its current term and awaiting confirmation.
type round struct {
	client uint32
	seq    uint64
	issue
}

// issueRead records a read index round for a client's read seq, issued now.
func (n *node) issueRead(client uint32, seq uint64) {
	is := n.now()
	if is.term != 0 && len(n.rounds) < maxRounds {
		n.rounds = append(n.rounds, round{client: client, seq: seq, issue: is})
	}
}

// confirmedRead returns the issue of the round that a ReadState for a
// client's read seq confirms: the earliest of this node's rounds for that
// read, as raft confirms a leader's rounds in order. It forgets that round
// and the client's earlier ones (confirmed with it). The zero issue, which
// renews no lease, means that this node does not lead or did not record
// the round (issued before it led, or beyond maxRounds).
func (n *node) confirmedRead(client uint32, seq uint64) issue {
	if n.state != raft.StateLeader {
		return issue{}
	}
	i := slices.IndexFunc(n.rounds, func(r round) bool { return r.client == client && r.seq == seq })
	if i < 0 {
		return issue{}
	}
	is := n.rounds[i].issue
	kept := n.rounds[:0]
	for j, r := range n.rounds {
		if j > i || r.client != client {
			kept = append(kept, r)
		}
	}
	n.rounds = kept
	return is
}

// startRenewal starts a renewal round, on a leader's heartbeat tick.
func (n *node) startRenewal() {
	if !n.bugs.leases() || n.ticks%heartbeatTicks != 0 {
		return
	}
	if len(n.renewals) == maxRenewals {
		n.renewals = append(n.renewals[:0], n.renewals[1:]...)
	}
	n.renewals = append(n.renewals, renewal{n.now()})
	n.stats.add(raftStats{ReadIndex: 1})
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
				n.renewLease(r.issue)
			}
			n.renewals = append(n.renewals[:0], n.renewals[i+1:]...)
			break
		}
	}
	return true
}

// refuseVote reports whether a vote (or pre-vote) request must be ignored:
// with leases, a node that has heard from a leader within its election
// timeout (whichever leader it follows now, if any), or has started within
// it and may have heard from one before, does not help another candidate
// depose it.
func (n *node) refuseVote(m *pb.Message) bool {
	if !n.bugs.leases() || m.GetFrom() == n.id {
		return false
	}
	switch m.GetType() {
	case pb.MsgVote, pb.MsgPreVote:
	default:
		return false
	}
	return n.state == raft.StateLeader || n.quiet < electionTicks
}

// heardLeader reports whether m is a leader's message (an append, a
// heartbeat or a snapshot) that raft accepts and may answer: its term is
// not older than the node's. Once the node has processed it, its votes
// stay refused for electionTicks (refuseVote).
func (n *node) heardLeader(m *pb.Message) bool {
	if !n.bugs.leases() {
		return false
	}
	switch m.GetType() {
	case pb.MsgApp, pb.MsgHeartbeat, pb.MsgSnap:
		return m.GetTerm() >= n.rn.BasicStatus().GetTerm()
	}
	return false
}

// endBatch ends the handling of a batch of events, once its Ready has
// been processed (its answers sent): a message from the current leader
// restarts the election timer, and with leases one that heardLeader
// accepted restarts the refusal of votes.
func (n *node) endBatch(fromLeader uint64) {
	if fromLeader != 0 && fromLeader == n.lead {
		n.idle = 0
	}
	if n.heard {
		n.quiet, n.heard = 0, false
	}
}

// dropLease forgets the lease and the rounds awaiting confirmation, when
// the node stops leading. Stepping down while the lease holds (on the
// leader's clock) is a goal of the lease bugs' search (simrt.Sometimes,
// where the branching explorer branches): the lease outlived the
// leadership, and a read that reached the leader before it learned of its
// successor would have been stale.
func (n *node) dropLease() {
	if n.bugs.leases() && n.state == raft.StateLeader {
		simrt.Sometimes(n.ctx, n.leaseRead(), "a leader steps down while its lease holds")
	}
	n.lease, n.renewals, n.rounds = lease{}, n.renewals[:0], n.rounds[:0]
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

// renewLease records a read index round that a quorum confirmed: it
// renews the lease if this node issued the round as leader of its current
// term.
func (n *node) renewLease(is issue) {
	if !n.bugs.leases() || n.state != raft.StateLeader || is.term == 0 || is.term != n.rn.BasicStatus().GetTerm() {
		return
	}
	if !n.lease.valid || is.at.After(n.lease.from) {
		n.lease = lease{valid: true, from: is.at, tick: is.tick}
	}
}
