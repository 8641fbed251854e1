// Package tcp is the production simrt.Network: real TCP sockets with
// TCP_NODELAY, a graceful close (the kernel sends what Send took, then a
// FIN; Config.AbortiveClose resets the connection instead), a connect
// timeout, and read and write timeouts that bound each whole Recv
// and Send (defaults: 10s, 60s, 60s). Peek shows the
// bytes the stream's read buffer already holds.
//
// Smallest use:
//
//	net := tcp.New(tcp.Config{})
//	l, err := net.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
//
// # Cancellation
//
// Every operation blocks its goroutine in the kernel; the package knows
// nothing of tasks. Besides the configured timeouts, three things cut a
// blocked operation short from another goroutine: Close of the half or
// listener, DialContext's context, the Interrupt method that every
// Listener, Sink and Stream of a Network has, and AcceptCall's. Interrupt
// shuts the half down in the kernel (a blocked Recv fails, a blocked Send
// fails) or closes the listener, and touches no Go state the blocked
// operation uses, so it is safe while that operation runs; the half is
// then poisoned, and must still be closed. An AcceptCall (a listener's
// NewAccept method) is one Accept that its Interrupt cuts short with
// ErrInterrupted and leaves the listener open: other Accepts go on
// waiting, and a connection the cut Accept took goes to the next one. The production runtime (package
// realtime) uses it to make simrt.Timeout and aborts cut a task's
// blocked I/O short, as they do in the simulator.
package tcp
