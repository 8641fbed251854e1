// Package tcp is the production simrt.Network: real TCP sockets with
// TCP_NODELAY, SO_LINGER 0 (closing a connection resets it at once), a
// connect timeout, and read and write timeouts that bound each whole Recv
// and Send (defaults: 10s, 60s, 60s). Peek shows the
// bytes the stream's read buffer already holds.
//
// Smallest use:
//
//	net := tcp.New(nil, tcp.Config{})
//	l, err := net.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
//
// # Cancellation
//
// Given an rtapi.Plumbing, an operation that would block runs its system call
// on a helper goroutine while the calling task parks through the runtime,
// so an abort or a simrt.Timeout unwinds the task as it would in the
// simulator: the system call is interrupted (its deadline set in the
// past), and the half is poisoned. Operations that complete at once (bytes
// already buffered, a send the kernel accepts whole) take no goroutine.
// With a nil Runtime every operation blocks its goroutine and only the
// configured timeouts end it, unless another goroutine calls the
// Interrupt method of the half or listener (a kernel shutdown of the half,
// or closing the listener), as the realtime runtime does for simrt.Timeout.
package tcp
