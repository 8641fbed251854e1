package electbench

import (
	"math/bits"
	"math/rand/v2"
	"time"
)

// Protocol constants of the scenario: randomised election timeouts in
// [ElectionMin, ElectionMax] and a heartbeat every HeartbeatInterval.
const (
	ElectionMin       = 150 * time.Millisecond
	ElectionMax       = 300 * time.Millisecond
	HeartbeatInterval = 50 * time.Millisecond
)

// MsgType says what a Message is.
type MsgType uint8

// Message types. The zero value is invalid.
const (
	MsgVote          MsgType = iota + 1 // RequestVote
	MsgVoteResp                         // RequestVote response
	MsgHeartbeat                        // AppendEntries with no entries
	MsgHeartbeatResp                    // AppendEntries response
)

// Message is one protocol message. Index and LogTerm are the sender's last
// log entry (a vote request, a heartbeat); OK says whether a vote was
// granted or a heartbeat accepted.
type Message struct {
	Type     MsgType
	From, To uint8
	OK       bool
	Term     uint64
	Index    uint64
	LogTerm  uint64
}

// TimerKind names one of a node's two timers.
type TimerKind uint8

// Timer kinds. The zero value is invalid.
const (
	TimerElection  TimerKind = iota + 1 // a follower or candidate campaigns
	TimerHeartbeat                      // a leader sends heartbeats
)

// Timer asks the driver to call Node.Tick(Kind, Gen) After from now. A
// later Timer of the same kind replaces it: the node ignores a tick whose
// Gen is not the latest, so a driver may cancel the old timer or let it
// fire, as it likes.
type Timer struct {
	Kind  TimerKind
	Gen   uint64
	After time.Duration
}

// Role is a node's role in its current term.
type Role uint8

// Roles. The zero value is invalid.
const (
	Follower Role = iota + 1
	Candidate
	Leader
)

// Node is one member of the cluster running simplified Raft leader
// election: randomised election timeouts, heartbeats from the leader,
// votes granted once per term to a candidate whose log is at least as up
// to date as the voter's, no pre-vote. Its log is one term-only entry:
// a new leader appends an entry of its term, and a follower that accepts a
// heartbeat adopts the leader's last entry (standing in for replication).
//
// Node does no I/O and reads no clock. The driver calls Start once, then
// Step for each delivered message and Tick for each fired timer, and after
// each call takes what to do from Sends and Timers (valid until the next
// call). A Node is not safe for concurrent use.
type Node struct {
	id, n    int
	rng      *rand.Rand
	role     Role
	term     uint64
	votedFor int // -1: none in this term
	votes    uint32
	index    uint64 // last log entry
	logTerm  uint64
	gen      [3]uint64 // latest timer generation per kind

	// Elections counts the campaigns this node started; Wins counts those
	// it won.
	Elections, Wins int

	sends  []Message
	timers []Timer
	won    bool

	// anyVote is a planted bug for the safety tests: the node grants every
	// vote request of its term, forgetting whom it voted for.
	anyVote bool
}

// NewNode returns node id of an n-node cluster (n at most 32) that draws
// its election timeouts from rng.
func NewNode(id, n int, rng *rand.Rand) *Node {
	if n < 1 || n > 32 || id < 0 || id >= n {
		panic("electbench.NewNode: need 0 <= id < n <= 32")
	}
	return &Node{id: id, n: n, rng: rng, role: Follower, votedFor: -1}
}

// ID returns the node's id.
func (nd *Node) ID() int { return nd.id }

// Role returns the node's role.
func (nd *Node) Role() Role { return nd.role }

// Term returns the node's current term.
func (nd *Node) Term() uint64 { return nd.term }

// Sends returns the messages the last call asked to send.
func (nd *Node) Sends() []Message { return nd.sends }

// Timers returns the timers the last call asked to set.
func (nd *Node) Timers() []Timer { return nd.timers }

// Won reports whether the last call made the node leader.
func (nd *Node) Won() bool { return nd.won }

func (nd *Node) reset() {
	nd.sends, nd.timers, nd.won = nd.sends[:0], nd.timers[:0], false
}

// Start arms the first election timer.
func (nd *Node) Start() {
	nd.reset()
	nd.armElection()
}

// Tick handles timer kind firing with generation gen; a stale gen is
// ignored.
func (nd *Node) Tick(kind TimerKind, gen uint64) {
	nd.reset()
	if kind < TimerElection || kind > TimerHeartbeat || gen != nd.gen[kind] {
		return
	}
	switch kind {
	case TimerElection:
		if nd.role != Leader {
			nd.campaign()
		}
	case TimerHeartbeat:
		if nd.role == Leader {
			nd.broadcast(MsgHeartbeat)
			nd.arm(TimerHeartbeat, HeartbeatInterval)
		}
	}
}

// Step handles one delivered message.
func (nd *Node) Step(m Message) {
	nd.reset()
	if m.Term > nd.term {
		nd.becomeFollower(m.Term)
	}
	switch m.Type {
	case MsgVote:
		grant := m.Term == nd.term &&
			(nd.votedFor == -1 || nd.votedFor == int(m.From) || nd.anyVote) &&
			nd.upToDate(m.LogTerm, m.Index)
		if grant {
			nd.votedFor = int(m.From)
			nd.armElection()
		}
		nd.reply(m, MsgVoteResp, grant)
	case MsgVoteResp:
		if nd.role == Candidate && m.Term == nd.term && m.OK {
			nd.votes |= 1 << m.From
			if 2*popcount(nd.votes) > nd.n {
				nd.becomeLeader()
			}
		}
	case MsgHeartbeat:
		if m.Term < nd.term {
			nd.reply(m, MsgHeartbeatResp, false)
			return
		}
		if nd.role == Leader {
			return // two leaders in one term: the Checker reports it
		}
		nd.role = Follower
		nd.index, nd.logTerm = m.Index, m.LogTerm
		nd.armElection()
		nd.reply(m, MsgHeartbeatResp, true)
	case MsgHeartbeatResp:
		// Terms were handled above; an empty heartbeat needs nothing more.
	}
}

// upToDate is Raft's election restriction: a log ending in (term, index)
// is at least as up to date as the node's own.
func (nd *Node) upToDate(term, index uint64) bool {
	return term > nd.logTerm || term == nd.logTerm && index >= nd.index
}

func (nd *Node) becomeFollower(term uint64) {
	wasLeader := nd.role == Leader
	nd.role, nd.term, nd.votedFor, nd.votes = Follower, term, -1, 0
	if wasLeader {
		nd.armElection()
	}
}

func (nd *Node) campaign() {
	nd.role = Candidate
	nd.term++
	nd.votedFor = nd.id
	nd.votes = 1 << nd.id
	nd.Elections++
	nd.armElection()
	if 2*popcount(nd.votes) > nd.n { // a cluster of one
		nd.becomeLeader()
		return
	}
	nd.broadcast(MsgVote)
}

func (nd *Node) becomeLeader() {
	nd.role = Leader
	nd.Wins++
	nd.won = true
	nd.index, nd.logTerm = nd.index+1, nd.term
	nd.gen[TimerElection]++ // a leader holds no election timer
	nd.broadcast(MsgHeartbeat)
	nd.arm(TimerHeartbeat, HeartbeatInterval)
}

func (nd *Node) broadcast(t MsgType) {
	for to := range nd.n {
		if to != nd.id {
			nd.sends = append(nd.sends, Message{Type: t, From: uint8(nd.id), To: uint8(to),
				Term: nd.term, Index: nd.index, LogTerm: nd.logTerm})
		}
	}
}

func (nd *Node) reply(m Message, t MsgType, ok bool) {
	nd.sends = append(nd.sends, Message{Type: t, From: uint8(nd.id), To: m.From, OK: ok, Term: nd.term})
}

// armElection arms the election timer with a fresh random timeout.
func (nd *Node) armElection() {
	span := int64(ElectionMax - ElectionMin)
	nd.arm(TimerElection, ElectionMin+time.Duration(nd.rng.Int64N(span+1)))
}

func (nd *Node) arm(kind TimerKind, d time.Duration) {
	nd.gen[kind]++
	nd.timers = append(nd.timers, Timer{Kind: kind, Gen: nd.gen[kind], After: d})
}

func popcount(x uint32) int { return bits.OnesCount32(x) }
