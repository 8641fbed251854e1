package main

import (
	"fmt"
	"slices"
	"strings"
)

// bug names one planted bug. Each is a realistic mistake in the code
// around raft, switched on with -bug NAME.
type bug string

const (
	// bugUnsyncedAck writes the log without syncing it and acknowledges
	// (votes, append responses, client replies) at once; a background task
	// syncs the log every 20ms. A whole-cluster crash loses writes that
	// clients saw committed.
	bugUnsyncedAck bug = "unsynced-ack"
	// bugFollowerRead lets a follower answer a read from its own state,
	// without a read index confirmed by a quorum: a partitioned or lagging
	// follower returns stale values.
	bugFollowerRead bug = "follower-read"
	// bugForgetHardState never writes the hard state (term, vote, commit)
	// to the log: after a restart a node may vote twice in one term, and
	// terms go backwards.
	bugForgetHardState bug = "forget-hardstate"
	// bugNoTermCheck matches a committed entry to the pending client
	// write at the same log index without checking that the entry has the
	// term the proposal was made in: when a new leader overwrote the
	// proposal, the client is told its write succeeded.
	bugNoTermCheck bug = "no-term-check"
	// bugUnsyncedVote writes a Ready that carries only a hard state (a vote
	// granted, a term adopted) without syncing it, reasoning that it has no
	// entries to lose. A process kill keeps the write in the page cache; a
	// power loss drops it, and the node, restarted with its old term and no
	// vote, votes again in the same term: partitioned so that the second
	// candidate's voters differ from the first's, the cluster elects two
	// leaders in one term.
	bugUnsyncedVote bug = "unsynced-vote"
	// bugLeaseNoDrift serves reads on the leader from local state while its
	// lease holds, the lease measured on the leader's own clock and as long
	// as the followers' shortest election timeout, with no allowance for
	// clock drift: a leader whose clock runs slow (or steps back) trusts a
	// lease that has already expired for the followers, which elected
	// another leader and committed writes it does not see.
	bugLeaseNoDrift bug = "lease-no-drift"
	// bugLeaseTicks serves lease reads with a lease counted in the
	// leader's ticks (as raft counts its election timeout), not in time: the
	// lease is short enough to be safe under drift, but a leader paused by a
	// GC or SIGSTOP counts one tick for the whole pause, and on resuming
	// answers reads from stale state before it learns of the new leader.
	bugLeaseTicks bug = "lease-ticks"
)

// bugs lists every planted bug with its description, in a fixed order.
var bugs = []struct {
	name bug
	desc string
}{
	{bugUnsyncedAck, "acknowledge log writes before they are synced (a background task syncs every 20ms)"},
	{bugFollowerRead, "followers serve reads from local state without a read index"},
	{bugForgetHardState, "never persist the hard state (term, vote, commit)"},
	{bugNoTermCheck, "answer the pending write at a log index without checking the applied entry's term"},
	{bugUnsyncedVote, "write a vote (a Ready with a hard state and no entries) without syncing it"},
	{bugLeaseNoDrift, "leader-lease reads, the lease timed on the leader's clock with no allowance for drift"},
	{bugLeaseTicks, "leader-lease reads, the lease counted in ticks, which a paused process does not count"},
}

// bugSet is the set of bugs switched on; the zero value is the healthy
// system.
type bugSet []bug

func (s bugSet) has(b bug) bool { return slices.Contains(s, b) }

// leases reports whether the leader serves lease reads: either lease bug
// switches them on.
func (s bugSet) leases() bool { return s.has(bugLeaseNoDrift) || s.has(bugLeaseTicks) }

// String lists the bugs, comma-separated, or "none".
func (s bugSet) String() string {
	if len(s) == 0 {
		return "none"
	}
	parts := make([]string, len(s))
	for i, b := range s {
		parts[i] = string(b)
	}
	return strings.Join(parts, ",")
}

// parseBugs parses a comma-separated list of bug names ("" is none).
func parseBugs(s string) (bugSet, error) {
	var set bugSet
	if s == "" {
		return set, nil
	}
	for name := range strings.SplitSeq(s, ",") {
		i := slices.IndexFunc(bugs, func(b struct {
			name bug
			desc string
		}) bool {
			return string(b.name) == name
		})
		if i < 0 {
			return nil, fmt.Errorf("unknown bug %q (known: %s)", name, bugNames())
		}
		set = append(set, bugs[i].name)
	}
	return set, nil
}

func bugNames() string {
	names := make([]string, len(bugs))
	for i, b := range bugs {
		names[i] = string(b.name)
	}
	return strings.Join(names, ", ")
}
