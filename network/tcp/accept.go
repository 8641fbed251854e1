package tcp

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/simrt/simrt"
)

// ErrInterrupted is what AcceptCall.Accept returns when its Interrupt cut
// it short. The listener stays open.
var ErrInterrupted = errors.New("tcp: accept interrupted")

// Cutting one Accept short without closing the listener. A deadline in
// the past wakes every Accept blocked on a socket, not only the one to
// cut; Go lets a deadline be cleared afterwards. So an interruption opens
// a wake episode: the deadline is set in the past, and every Accept that
// wakes meanwhile and was not cut waits (on notify) until the episode
// ends, then blocks again. The episode ends, and the deadline is cleared,
// once every cut Accept has returned and every connection a cut Accept
// took from the kernel has been handed on (handed) to the next Accept:
// none is lost or closed, as in the simulator, where an unwound Accept
// leaves the connection queued.

type listener struct {
	n    *Network
	ln   *net.TCPListener
	addr netip.AddrPort

	// stop is closed, ending a backoff or a wait for an episode, when the
	// listener is closed or interrupted.
	stop     chan struct{}
	stopOnce sync.Once
	// onBackoff, when set (by tests), is called with the error before
	// each backoff.
	onBackoff func(error)
	// onKernel, when set (by tests), is called as the kernel's accept
	// returns, before the call looks at whether it was cut.
	onKernel func()

	mu struct {
		sync.Mutex
		closed  bool
		episode bool           // the deadline is in the past
		cuts    int            // AcceptCalls cut and still running
		handed  []*net.TCPConn // accepted by cut calls, for the next Accept
		notify  chan struct{}  // closed and replaced when the above change
	}
}

var _ simrt.Listener = (*listener)(nil)

func newListener(n *Network, ln *net.TCPListener) *listener {
	l := &listener{n: n, ln: ln, addr: ln.Addr().(*net.TCPAddr).AddrPort(), stop: make(chan struct{})}
	l.mu.notify = make(chan struct{})
	return l
}

// aLongTimeAgo is a deadline in the past: it wakes a blocked Accept.
var aLongTimeAgo = time.Unix(1, 0)

// An AcceptCall is one Accept on a listener of this package that another
// goroutine may cut short with Interrupt, leaving the listener open. Make
// one per Accept with the listener's NewAccept method.
type AcceptCall struct {
	l    *listener
	cut  bool // Interrupt came before the call returned (under l.mu)
	done bool // the call has returned: Interrupt does nothing (under l.mu)
}

// NewAccept returns an AcceptCall on l, for one Accept.
func (l *listener) NewAccept() *AcceptCall { return &AcceptCall{l: l} }

// Interrupt cuts a's Accept short: if it has not returned yet, it returns
// ErrInterrupted, and a connection it took meanwhile goes to the next
// Accept on the listener. Other Accepts blocked on the listener go on
// waiting. Safe from any goroutine, before or during the call; after it
// returned, Interrupt does nothing.
func (a *AcceptCall) Interrupt() {
	l := a.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.cut || a.done {
		return
	}
	a.cut = true
	l.mu.cuts++
	if !l.mu.episode && !l.mu.closed {
		l.mu.episode = true
		l.ln.SetDeadline(aLongTimeAgo)
	}
	l.notifyLocked()
}

// notifyLocked wakes the Accepts that wait for the episode to change.
func (l *listener) notifyLocked() {
	close(l.mu.notify)
	l.mu.notify = make(chan struct{})
}

// endLocked marks a returned, and ends the episode if nothing needs it.
func (a *AcceptCall) endLocked() {
	l := a.l
	a.done = true
	if a.cut {
		l.mu.cuts--
	}
	if l.mu.episode && l.mu.cuts == 0 && len(l.mu.handed) == 0 {
		l.mu.episode = false
		if !l.mu.closed {
			l.ln.SetDeadline(time.Time{})
		}
		l.notifyLocked()
	}
}

// Accept implements simrt.Listener.Accept. When the process or the system
// is out of file descriptors or buffers (EMFILE, ENFILE, ENOBUFS, ENOMEM)
// the listener is still open and the pending connection waits in the
// kernel's queue, so Accept waits and tries again, as net/http's Server
// does: 5ms, doubling up to 1s between attempts, until a descriptor is
// free or the listener is closed. A connection past the network's
// MaxConns is closed at once, and Accept waits for the next. Any other
// failure (including Close) returns simrt.ErrClosed.
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	a := AcceptCall{l: l}
	return a.Accept()
}

// Accept is the listener's Accept (see there), or ErrInterrupted once
// Interrupt has cut it short. Call it once.
func (a *AcceptCall) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	l := a.l
	var delay time.Duration
	for {
		c, wait, err := a.before()
		if c == nil && err == nil {
			if wait != nil {
				select { // an episode: wait until it changes
				case <-wait:
				case <-l.stop:
				}
				continue
			}
			k, kerr := l.ln.AcceptTCP()
			if l.onKernel != nil {
				l.onKernel()
			}
			var retry bool
			if c, retry, err = a.after(k, kerr); retry {
				continue
			}
			if c == nil && err == nil { // out of resources
				delay = min(max(2*delay, minAcceptBackoff), maxAcceptBackoff)
				if l.onBackoff != nil {
					l.onBackoff(kerr)
				}
				l.backoff(delay)
				continue
			}
		}
		if err != nil {
			return netip.AddrPort{}, nil, nil, err
		}
		if !l.n.conns.Take(1) {
			c.Close() // past MaxConns: refuse it, and wait for the next
			a.reopen()
			continue
		}
		si, st := l.n.wrap(c)
		return c.RemoteAddr().(*net.TCPAddr).AddrPort(), si, st, nil
	}
}

// reopen makes a, which has returned a connection that Accept refused
// (MaxConns), a call in progress again, which Interrupt may cut.
func (a *AcceptCall) reopen() {
	a.l.mu.Lock()
	a.done = false
	a.l.mu.Unlock()
}

// before is what a's Accept does before it asks the kernel: it returns an
// error if the listener is closed or a is cut, a connection handed on by a
// cut Accept, or, during an episode, the channel to wait on. All nil: ask
// the kernel.
func (a *AcceptCall) before() (*net.TCPConn, <-chan struct{}, error) {
	l := a.l
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.mu.closed:
		a.endLocked()
		return nil, nil, simrt.ErrClosed
	case a.cut:
		a.endLocked()
		return nil, nil, ErrInterrupted
	case len(l.mu.handed) > 0:
		c := l.mu.handed[0]
		l.mu.handed[0] = nil
		l.mu.handed = l.mu.handed[1:]
		a.endLocked()
		return c, nil, nil
	case l.mu.episode:
		return nil, l.mu.notify, nil
	}
	return nil, nil, nil
}

// after is what a's Accept does with what the kernel returned: the
// connection, or ErrInterrupted if a was cut meanwhile (the connection is
// handed on), or ErrClosed; retry if an episode's deadline woke it; all
// zero if the process is out of resources (back off and retry).
func (a *AcceptCall) after(c *net.TCPConn, err error) (_ *net.TCPConn, retry bool, _ error) {
	l := a.l
	switch {
	case err == nil:
		l.mu.Lock()
		defer l.mu.Unlock()
		if !a.cut {
			a.endLocked()
			return c, false, nil
		}
		if l.mu.closed {
			c.Close()
		} else {
			l.mu.handed = append(l.mu.handed, c)
			l.notifyLocked()
		}
		a.endLocked()
		return nil, false, ErrInterrupted
	case isTimeout(err):
		return nil, true, nil
	case outOfResources(err):
		return nil, false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	a.endLocked()
	return nil, false, simrt.ErrClosed
}

// Accept backoff when the process runs out of descriptors or buffers, as
// net/http's Server: 5ms, doubling up to 1s.
const (
	minAcceptBackoff = 5 * time.Millisecond
	maxAcceptBackoff = time.Second
)

// backoff waits d, or less if the listener is closed or interrupted, or
// an Accept on it is cut, meanwhile.
func (l *listener) backoff(d time.Duration) {
	l.mu.Lock()
	notify := l.mu.notify
	l.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.stop:
	case <-notify:
	}
}

// shut closes the listener's socket and the connections handed on and not
// taken, and ends a backoff or a wait in progress.
func (l *listener) shut() {
	l.mu.Lock()
	l.mu.closed = true
	handed := l.mu.handed
	l.mu.handed = nil
	l.mu.Unlock()
	l.ln.Close()
	for _, c := range handed {
		c.Close()
	}
	l.stopOnce.Do(func() { close(l.stop) })
}
