package realtime

import (
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// acceptCaller is what the interruption layer needs of a tcp listener
// beside Interrupt (which closes it): one tcp.AcceptCall per Accept, to
// cut that Accept short and leave the listener open.
type acceptCaller interface{ NewAccept() *tcp.AcceptCall }

// listener is a tcp listener under the interruption layer. An Accept cut
// short (its task's Timeout expires, or the task is aborted) leaves the
// listener open, as in the simulator: another Accept, blocked meanwhile
// or later, gets the next connection, and a connection the cut Accept
// took goes to it. The runtime closes the listener at shutdown.
// Accepted connections belong to its owner.
type listener struct {
	rt     *runtime
	owner  *task
	inner  simrt.Listener
	calls  acceptCaller
	closed atomic.Bool
	// tg is the listener as blockedTask sees it (its cache of the last
	// caller); the Accepts themselves are cut one by one.
	tg ioTarget
	// orphans are the Accepts in progress on goroutines that are no
	// task's: an abort of the owner cuts them short (ErrClosed), and
	// every one after it.
	orphans struct {
		sync.Mutex
		ownerAborted bool
		calls        map[*tcp.AcceptCall]struct{}
	}
}

var _ simrt.Listener = (*listener)(nil)

// Accept implements simrt.Listener.Accept. If the task blocked in it (its
// owner, or a task it was handed to) is interrupted (a Timeout expires, an
// abort) while Accept blocks, Accept unwinds that task (see interrupt.go)
// and the listener stays open; a connection that arrived for it is handed
// to the next Accept. Called from a goroutine that is no task's, Accept is
// cut short, with ErrClosed, by an abort of the listener's owner.
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	for {
		call := l.calls.NewAccept()
		o := l.rt.blockedTask(l.owner, &l.tg)
		tg := &ioTarget{inner: call} // per call: a cut poisons nothing
		if o == nil || !o.beginIO(tg) {
			return l.acceptOrphan(call)
		}
		peer, sink, stream, err := call.Accept()
		o.endIO(tg)
		if errors.Is(err, tcp.ErrInterrupted) {
			o.ct.CheckInterrupt() // unwinds, or the flag was stale: accept again
			continue
		}
		return l.accepted(peer, sink, stream, err)
	}
}

// acceptOrphan runs call, from a goroutine that is no task's, as one of
// the orphans that an abort of the owner cuts short.
func (l *listener) acceptOrphan(call *tcp.AcceptCall) (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	o := &l.orphans
	o.Lock()
	if o.ownerAborted {
		o.Unlock()
		return netip.AddrPort{}, nil, nil, simrt.ErrClosed
	}
	if o.calls == nil {
		o.calls = make(map[*tcp.AcceptCall]struct{})
	}
	o.calls[call] = struct{}{}
	o.Unlock()
	peer, sink, stream, err := call.Accept()
	o.Lock()
	delete(o.calls, call)
	o.Unlock()
	if errors.Is(err, tcp.ErrInterrupted) {
		err = simrt.ErrClosed
	}
	return l.accepted(peer, sink, stream, err)
}

// accepted wraps what tcp's Accept returned.
func (l *listener) accepted(peer netip.AddrPort, sink simrt.Sink, stream simrt.Stream, err error) (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	if err != nil {
		return peer, nil, nil, err
	}
	tc := newAccepted(l.rt, l.owner, sink, stream)
	return peer, &tc.sink, &tc.stream, nil
}

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *listener) Close() error {
	if l.closed.CompareAndSwap(false, true) {
		l.owner.closers().remove((*orphanAccepts)(l))
		l.rt.io.remove(l)
	}
	return l.inner.Close()
}

// Interrupt closes the listener in the kernel, which unblocks a pending
// Accept without racing with it (the shutdown).
func (l *listener) Interrupt() { l.tg.inner.Interrupt() }

// orphanAccepts is a listener as its owner's closers see it: an abort of
// the owner cuts short the Accepts of goroutines that are no task's, and
// leaves the listener open (the tasks' own Accepts are cut by their own
// interruptions).
type orphanAccepts listener

// Interrupt cuts the orphan Accepts short, now and from then on.
func (a *orphanAccepts) Interrupt() {
	o := &a.orphans
	o.Lock()
	defer o.Unlock()
	o.ownerAborted = true
	for c := range o.calls {
		c.Interrupt()
	}
}

// Close is Interrupt (the owner's closers close what they track at
// shutdown; the runtime closes the listener itself).
func (a *orphanAccepts) Close() error {
	a.Interrupt()
	return nil
}
