package electbench

import (
	"math/rand/v2"
	"testing"
	"time"
)

func testRNG() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// campaign fires n's election timer and returns its vote requests.
func campaign(t *testing.T, n *Node) []Message {
	t.Helper()
	n.Start()
	tm := n.Timers()[0]
	n.Tick(tm.Kind, tm.Gen)
	if n.Role() != Candidate {
		t.Fatalf("node %d is %v after its election timeout, want a candidate", n.ID(), n.Role())
	}
	return append([]Message(nil), n.Sends()...)
}

func voteFor(t *testing.T, voter *Node, req Message) bool {
	t.Helper()
	voter.Step(req)
	s := voter.Sends()
	if len(s) != 1 || s[0].Type != MsgVoteResp || int(s[0].To) != int(req.From) {
		t.Fatalf("voter %d answered %+v, want one vote response to %d", voter.ID(), s, req.From)
	}
	return s[0].OK
}

func TestElectionWithMajority(t *testing.T) {
	nodes := []*Node{NewNode(0, 3, testRNG()), NewNode(1, 3, testRNG()), NewNode(2, 3, testRNG())}
	reqs := campaign(t, nodes[0])
	if len(reqs) != 2 {
		t.Fatalf("candidate sent %d vote requests, want 2", len(reqs))
	}
	if !voteFor(t, nodes[1], reqs[0]) {
		t.Fatal("a fresh voter refused its vote")
	}
	nodes[0].Step(nodes[1].Sends()[0])
	if nodes[0].Role() != Leader || !nodes[0].Won() || nodes[0].Wins != 1 || nodes[0].Elections != 1 {
		t.Fatalf("candidate with 2 of 3 votes: role %v, won %v, wins %d, elections %d",
			nodes[0].Role(), nodes[0].Won(), nodes[0].Wins, nodes[0].Elections)
	}
	hb := nodes[0].Sends()
	if len(hb) != 2 || hb[0].Type != MsgHeartbeat || hb[0].LogTerm != 1 || hb[0].Index != 1 {
		t.Fatalf("new leader sent %+v, want heartbeats carrying its entry (1, term 1)", hb)
	}
}

func TestOneVotePerTerm(t *testing.T) {
	a, b, voter := NewNode(0, 3, testRNG()), NewNode(2, 3, testRNG()), NewNode(1, 3, testRNG())
	ra, rb := campaign(t, a), campaign(t, b)
	if !voteFor(t, voter, ra[0]) {
		t.Fatal("first candidate refused")
	}
	if voteFor(t, voter, rb[1]) {
		t.Fatal("voter granted a second vote in term 1")
	}
	if !voteFor(t, voter, ra[0]) {
		t.Fatal("a repeated request from the candidate voted for was refused")
	}
}

// TestVoteNeedsUpToDateLog pins Raft's election restriction: a voter whose
// last entry has a later term refuses a candidate whose log lags, even in
// a higher term, and still moves to that term.
func TestVoteNeedsUpToDateLog(t *testing.T) {
	voter := NewNode(1, 3, testRNG())
	voter.Start()
	voter.Step(Message{Type: MsgHeartbeat, From: 0, To: 1, Term: 3, Index: 2, LogTerm: 3})
	req := Message{Type: MsgVote, From: 2, To: 1, Term: 4, Index: 5, LogTerm: 2}
	if voteFor(t, voter, req) {
		t.Fatal("vote granted to a candidate whose last entry has an older term")
	}
	if voter.Term() != 4 {
		t.Fatalf("voter's term is %d after a request of term 4", voter.Term())
	}
	req = Message{Type: MsgVote, From: 0, To: 1, Term: 4, Index: 2, LogTerm: 3}
	if !voteFor(t, voter, req) {
		t.Fatal("vote refused to a candidate with an equal log")
	}
}

func TestHigherTermDeposesLeader(t *testing.T) {
	n := NewNode(0, 1, testRNG())
	n.Start()
	tm := n.Timers()[0]
	n.Tick(tm.Kind, tm.Gen)
	if n.Role() != Leader {
		t.Fatalf("single node is %v after its timeout, want leader", n.Role())
	}
	n.Step(Message{Type: MsgHeartbeatResp, From: 0, To: 0, Term: 7})
	if n.Role() != Follower || n.Term() != 7 {
		t.Fatalf("after a reply of term 7: role %v term %d, want follower of term 7", n.Role(), n.Term())
	}
	if ts := n.Timers(); len(ts) != 1 || ts[0].Kind != TimerElection {
		t.Fatalf("deposed leader set timers %+v, want an election timer", ts)
	}
}

func TestStaleTimerIgnored(t *testing.T) {
	n := NewNode(1, 3, testRNG())
	n.Start()
	old := n.Timers()[0]
	n.Step(Message{Type: MsgHeartbeat, From: 0, To: 1, Term: 1})
	n.Tick(old.Kind, old.Gen)
	if n.Role() != Follower || len(n.Sends()) != 0 {
		t.Fatalf("a replaced election timer started a campaign: role %v, sends %+v", n.Role(), n.Sends())
	}
}

func TestElectionTimeoutsInRange(t *testing.T) {
	n := NewNode(0, 3, testRNG())
	for range 1000 {
		n.Start()
		if d := n.Timers()[0].After; d < ElectionMin || d > ElectionMax {
			t.Fatalf("election timeout %v outside [%v, %v]", d, ElectionMin, ElectionMax)
		}
	}
}

// TestCheckerCatchesTwoLeaders forges a vote so that two nodes lead term
// 1, and checks that both halves of the safety check fail.
func TestCheckerCatchesTwoLeaders(t *testing.T) {
	nodes := []*Node{NewNode(0, 3, testRNG()), NewNode(1, 3, testRNG()), NewNode(2, 3, testRNG())}
	c := NewChecker()
	ra := campaign(t, nodes[0])
	campaign(t, nodes[2])
	voteFor(t, nodes[1], ra[0])
	nodes[0].Step(nodes[1].Sends()[0])
	c.Won(nodes[0].Term(), 0, 0)
	nodes[2].Step(Message{Type: MsgVoteResp, From: 1, To: 2, OK: true, Term: 1}) // a forged vote
	if nodes[0].Role() != Leader || nodes[2].Role() != Leader {
		t.Fatal("setup: want two leaders of term 1")
	}
	if err := NewChecker().EndPhase(nodes); err == nil {
		t.Error("EndPhase passed with two leaders of term 1")
	}
	c.Won(nodes[2].Term(), 2, 0)
	nodes[2].Step(Message{Type: MsgHeartbeatResp, From: 1, To: 2, Term: 2}) // node 2 steps down
	if err := c.EndPhase(nodes); err == nil {
		t.Error("EndPhase passed after two wins of term 1")
	} else {
		t.Log(err)
	}
	if err := NewChecker().EndPhase(nodes); err != nil {
		t.Errorf("EndPhase failed with one leader: %v", err)
	}
}

func TestDecodeRejectsMalformedFrames(t *testing.T) {
	var b [frameSize]byte
	m := Message{Type: MsgHeartbeat, From: 3, To: 1, OK: true, Term: 9, Index: 4, LogTerm: 8}
	encode(b[:], m, 1500*time.Millisecond)
	if got, sent, err := decode(b[:]); err != nil || got != m || sent != 1500*time.Millisecond {
		t.Fatalf("round trip: got %+v sent at %v, %v; want %+v sent at 1.5s", got, sent, err, m)
	}
	for name, mutate := range map[string]func(f []byte) []byte{
		"short":     func(f []byte) []byte { return f[:frameSize-1] },
		"type zero": func(f []byte) []byte { f[0] = 0; return f },
		"type high": func(f []byte) []byte { f[0] = 5; return f },
		"from":      func(f []byte) []byte { f[1] = Nodes; return f },
		"to":        func(f []byte) []byte { f[2] = 200; return f },
		"self":      func(f []byte) []byte { f[2] = f[1]; return f },
		"ok":        func(f []byte) []byte { f[3] = 2; return f },
		"sent":      func(f []byte) []byte { f[28] = 0x80; return f },
	} {
		f := append([]byte(nil), b[:]...)
		if _, _, err := decode(mutate(f)); err != errBadFrame {
			t.Errorf("%s: decode returned %v, want errBadFrame", name, err)
		}
	}
}
