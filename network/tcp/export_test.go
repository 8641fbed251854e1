package tcp

import (
	"net"

	"github.com/simrt/simrt"
)

// SetOnBackoff makes l call f with the error before each accept backoff.
// Call it before Accept.
func SetOnBackoff(l simrt.Listener, f func(error)) { l.(*listener).onBackoff = f }

// SetOnKernel makes l call f as each kernel accept returns. Call it
// before Accept.
func SetOnKernel(l simrt.Listener, f func()) { l.(*listener).onKernel = f }

// NewAccept returns an AcceptCall on l.
func NewAccept(l simrt.Listener) *AcceptCall { return l.(*listener).NewAccept() }

// RawConn returns the socket under a sink of a Network.
func RawConn(s simrt.Sink) *net.TCPConn { return s.(*sink).c.c }
