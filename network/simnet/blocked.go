package simnet

import (
	"strconv"

	"github.com/simrt/simrt/internal/core"
)

// What a task parked in the network waits for, as a failure report says it
// (see core.Blocker). Each is a view of the state the task waits on, so
// recording a wait costs nothing.

// dialWait is a Dial waiting for a clogged or cut path to open.
const dialWait = core.WaitText("Dial across a clogged or partitioned path")

// recvWait is a pipe seen from the stream waiting for its bytes.
type recvWait pipe

// BlockedOn implements core.Blocker.
func (p *recvWait) BlockedOn() string {
	return "Recv at " + p.to.String() + " on the connection from " + p.from.String()
}

// sendWait is a pipe seen from a Send waiting for the peer's stream to
// take enough bytes that what is still unread fits the buffer.
type sendWait pipe

// BlockedOn implements core.Blocker: "Send at A to B: waiting for the peer
// to take 70000 bytes", the bytes the stream must still pull before the
// latest Send on the connection returns (the unread bytes over the
// buffer size).
func (p *sendWait) BlockedOn() string {
	over := p.pushed - p.drained - int64(p.net.bufSize)
	return "Send at " + p.from.String() + " to " + p.to.String() +
		": waiting for the peer to take " + strconv.FormatInt(max(over, 0), 10) + " bytes"
}

// acceptWait is a listener seen from a task waiting in Accept.
type acceptWait listener

// BlockedOn implements core.Blocker.
func (l *acceptWait) BlockedOn() string { return "Accept on " + l.addr.String() }
