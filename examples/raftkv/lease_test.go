package main

import (
	"io"
	"log"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic/decision"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// TestLeaseSafeAtOneClockRate replays the run that showed a hole in the
// lease's argument: seed 133 with lease-no-drift and no clock faults (every
// clock at one rate, where the lease must hold). Under two overlapping
// partitions the leader n4 retried a client's read index at 2.120 s, with
// the context (client, sequence number) of its first try at 1.450 s. Raft
// confirmed the first try's round at 2.335 s, acknowledged by n1 before
// the partition cut it off at 1.587 s and by n3 after its restart at
// 2.308 s, and n4, matching the ReadState to the retry, renewed its lease
// from 2.120 s. n1, n2 and n5 elected n1 at 2.374 s, and n4 served a
// lease read at 2.391 s. The lease safety check must not fire, and the
// run must serve lease reads (or it tests nothing).
func TestLeaseSafeAtOneClockRate(t *testing.T) {
	o := runSeed(simConfig{Seed: 133, Bugs: bugSet{bugLeaseNoDrift}, faultKinds: withoutClockFaults()})
	if o.Failure != "" {
		t.Fatalf("seed 133 without clock faults: %s", o.Failure)
	}
	if o.LeaseReads == 0 {
		t.Fatalf("seed 133 without clock faults served no lease read")
	}
	if o.Faults[10]+o.Faults[11]+o.Faults[12] != 0 {
		t.Fatalf("faults %v: want no clock fault", o.Faults)
	}
}

// TestLeaseSafetyCheck checks that the harness's lease check finds
// lease-no-drift's unsafe lease under clock faults within 1,000 seeds:
// seed 331 is its first failing seed with swarm.
func TestLeaseSafetyCheck(t *testing.T) {
	o := runSeed(simConfig{Seed: 331, Bugs: bugSet{bugLeaseNoDrift}})
	if !strings.HasPrefix(o.Failure, leaseSafety) {
		t.Fatalf("seed 331 with lease-no-drift: failure %q, want a %s", o.Failure, leaseSafety)
	}
}

// TestConfirmedRead checks the leader's bookkeeping of client read
// rounds: a ReadState names a read (client, sequence number), which a
// retry shares with its first try, and confirms the earliest round of it
// still awaiting confirmation, raft confirming rounds in order.
func TestConfirmedRead(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) issue {
		return issue{at: t0.Add(time.Duration(ms) * time.Millisecond), tick: uint64(ms), term: 1}
	}
	n := &node{state: raft.StateLeader}
	n.rounds = []round{{0, 7, at(1)}, {0, 8, at(1450)}, {1, 7, at(1657)}, {0, 8, at(2120)}}
	if got := n.confirmedRead(0, 8); got != at(1450) {
		t.Fatalf("first ReadState of c0/8: issue %v, want the first try's, %v", got, at(1450))
	}
	// c0's earlier round (seq 7) went with it; c1's stays.
	want := []round{{1, 7, at(1657)}, {0, 8, at(2120)}}
	if !slices.Equal(n.rounds, want) {
		t.Fatalf("rounds left %v, want %v", n.rounds, want)
	}
	if got := n.confirmedRead(0, 8); got != at(2120) {
		t.Fatalf("second ReadState of c0/8: issue %v, want the retry's, %v", got, at(2120))
	}
	if got := n.confirmedRead(0, 8); got != (issue{}) {
		t.Fatalf("third ReadState of c0/8: issue %v, want none", got)
	}
	n.state = raft.StateFollower
	if got := n.confirmedRead(1, 7); got != (issue{}) {
		t.Fatalf("a follower's ReadState: issue %v, want none", got)
	}
}

// TestVotesRefusedAfterLeaderHeard checks the sticky votes of the lease
// argument: a node that processed a leader's heartbeat refuses votes for
// electionTicks ticks even if its leader became unknown since (raft drops
// the leader on a message of a higher term), and a heartbeat of an older
// term, which raft rejects, does not restart the refusal.
func TestVotesRefusedAfterLeaderHeard(t *testing.T) {
	rn, err := raft.NewRawNode(&raft.Config{
		ID: 1, ElectionTick: electionTicks, HeartbeatTick: heartbeatTicks,
		Storage: voterStorage{raft.NewMemoryStorage(), []uint64{1, 2, 3}}, MaxSizePerMsg: 1 << 10, MaxInflightMsgs: 8,
		PreVote: true, Logger: &raft.DefaultLogger{Logger: log.New(io.Discard, "", 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{nodeConfig: nodeConfig{id: 1, nodes: 3, bugs: bugSet{bugLeaseNoDrift}}, rn: rn, state: raft.StateFollower, timeout: 1 << 20}
	vote := msg(pb.MessageType_MsgVote, 3, 3)
	for range electionTicks {
		n.tick()
	}
	if n.refuseVote(vote) {
		t.Fatalf("a node that heard from no leader since %d ticks after its start refuses votes", electionTicks)
	}
	n.handle(event{msg: msg(pb.MessageType_MsgHeartbeat, 2, 2)})
	n.endBatch(0) // the leader n2 is not yet n.lead: ready() sets it
	n.lead = 0    // ... and a message of a higher term then dropped it
	for range electionTicks - 1 {
		n.tick()
	}
	if !n.refuseVote(vote) {
		t.Fatalf("%d ticks after a leader's heartbeat, with no leader known, the node grants votes", electionTicks-1)
	}
	n.tick()
	if n.refuseVote(vote) {
		t.Fatalf("%d ticks after a leader's heartbeat the node still refuses votes", electionTicks)
	}
	n.handle(event{msg: msg(pb.MessageType_MsgHeartbeat, 3, 1)}) // term 1 < 2: rejected
	n.endBatch(3)
	if n.refuseVote(vote) {
		t.Fatalf("a heartbeat of an older term restarted the refusal of votes")
	}
}

func msg(typ pb.MessageType, from, term uint64) *pb.Message {
	to := uint64(1)
	return &pb.Message{Type: &typ, From: &from, To: &to, Term: &term}
}

// hitRecorder is a decision stream with no decisions (the seed makes
// every choice) that records the run's first hits of goals.
type hitRecorder struct {
	decision.Stream
	hits []decision.Hit
}

// FirstHit implements decision.HitObserver.
func (h *hitRecorder) FirstHit(hit decision.Hit) { h.hits = append(h.hits, hit) }

// TestLeaseGoal checks raftkv's goal for the branching explorer: in
// lease-ticks' seed 3 a leader steps down while its lease holds (and the
// run passes: the goal lies short of a failure); a run without leases
// never evaluates it.
func TestLeaseGoal(t *testing.T) {
	const goal = "a leader steps down while its lease holds"
	for _, tc := range []struct {
		bugs bugSet
		want bool
	}{
		{bugSet{bugLeaseTicks}, true},
		{nil, false},
	} {
		rec := &hitRecorder{}
		runSeed(simConfig{Seed: 3, Bugs: tc.bugs, Replay: rec})
		got := slices.ContainsFunc(rec.hits, func(h decision.Hit) bool { return h.Name == goal })
		if got != tc.want {
			t.Errorf("bugs %v, seed 3: goal %q reached %v, want %v (hits %v)", tc.bugs, goal, got, tc.want, rec.hits)
		}
	}
}
