package simnet

import "github.com/simrt/simrt/internal/core"

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

// acceptWait is a listener seen from a task waiting in Accept.
type acceptWait listener

// BlockedOn implements core.Blocker.
func (l *acceptWait) BlockedOn() string { return "Accept on " + l.addr.String() }
