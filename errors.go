package simrt

import (
	"errors"
	"fmt"
)

// Errors returned by runtimes. Compare with errors.Is; the storage and
// network errors that carry fields are typed (see BlobError and friends).
var (
	// ErrClosed: the task was aborted or never started, the channel or
	// connection is closed, or a poisoned half was used again.
	ErrClosed = errors.New("closed")
	// ErrExited: the task panicked and the runtime caught the panic.
	ErrExited = errors.New("exited")
	// ErrAborted: a completion handle was aborted by its owner.
	ErrAborted = errors.New("aborted")
	// ErrTimeout: a Timeout, a Stop or a connection attempt ran out of time.
	ErrTimeout = errors.New("timeout")
	// ErrBindFailed: the address could not be bound.
	ErrBindFailed = errors.New("bind failed")
	// ErrConnectionFailed: the dial did not reach a listener.
	ErrConnectionFailed = errors.New("connection failed")
	// ErrWriteFailed: a storage write failed.
	ErrWriteFailed = errors.New("write failed")
	// ErrReadFailed: a storage read failed.
	ErrReadFailed = errors.New("read failed")
	// ErrSendFailed: a network send failed; the sink is now poisoned.
	ErrSendFailed = errors.New("send failed")
	// ErrRecvFailed: a network receive failed; the stream is now poisoned.
	ErrRecvFailed = errors.New("recv failed")
	// ErrRecvTooLarge: a Recv asked for more bytes than the network's
	// maximum receive size (see DefaultMaxRecvSize), or for a negative
	// number of bytes (a length read from a peer that wrapped around as
	// an int); the stream is now poisoned. It matches ErrRecvFailed.
	ErrRecvTooLarge = fmt.Errorf("%w: size out of range", ErrRecvFailed)
	// ErrRecvMemory: a Recv needed more receive memory than the process's
	// streams may hold together (see DefaultMaxRecvMemory); the stream is
	// now poisoned. It matches ErrRecvFailed.
	ErrRecvMemory = fmt.Errorf("%w: receive memory exhausted", ErrRecvFailed)
	// ErrConnLimit: a Dial was refused because the network's bound on
	// open connections was reached (network/tcp's Config.MaxConns). It
	// matches ErrConnectionFailed.
	ErrConnLimit = fmt.Errorf("%w: too many open connections", ErrConnectionFailed)
	// ErrResolveFailed: the host name has no address. Returned wrapped in a
	// *ResolveError that names the host.
	ErrResolveFailed = errors.New("dns resolution failed")
)

// PanicError is what Handle.Await returns when the task panicked and the
// runtime was configured to catch panics. It matches ErrExited.
type PanicError struct {
	// Value is the value the task panicked with.
	Value any
	// Stack is the task's stack at the panic.
	Stack []byte
}

// Error describes the panic.
func (e *PanicError) Error() string { return fmt.Sprintf("exited: task panicked: %v", e.Value) }

// Unwrap makes errors.Is(err, ErrExited) true.
func (e *PanicError) Unwrap() error { return ErrExited }

// ResolveError records a failed DNS lookup. It matches ErrResolveFailed.
type ResolveError struct {
	Host string
	Err  error // the resolver's own error, if any
}

// Error names the host that did not resolve, or says that the name was
// empty.
func (e *ResolveError) Error() string {
	host := e.Host
	if host == "" {
		host = "empty host name"
	}
	if e.Err != nil {
		return "dns resolution failed: " + host + ": " + e.Err.Error()
	}
	return "dns resolution failed: " + host
}

// Unwrap makes errors.Is(err, ErrResolveFailed) true.
func (e *ResolveError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrResolveFailed, e.Err}
	}
	return []error{ErrResolveFailed}
}
