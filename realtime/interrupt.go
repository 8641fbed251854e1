package realtime

import (
	"context"
	"fmt"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/simrt/simrt/internal/shell"
)

// Interrupting network I/O.
//
// simrt.Timeout unwinds a task at its next park; in the simulator every
// network operation parks, so a Timeout cuts a blocked Send, Recv, Accept
// or Dial short. In production those operations block their goroutine in
// the kernel, so the runtime must cut the system call short itself.
//
// Dial carries a context: its connect is cancelled when the dialling task
// is aborted or interrupted (see Context.Dial). Sinks, streams and
// listeners carry none, so the runtime finds the task blocked in an
// operation on one of them from the goroutine that calls it: the goroutine
// of a task that has been marked (see markGoroutine below) carries a
// profiler label set of its own, and the runtime keeps a table from that
// label set to the task (markedTasks). The half's owner, the task whose
// context opened it (Dial, Bind; for an accepted connection, the owner of
// the listener), is tried first, then the task that last used the half,
// then the table, so that interruption follows the task that is blocked in
// the call, whoever opened the connection. A call from a goroutine that is
// no marked task's is cut short by aborts of the owner and the network's
// timeouts only.
//
// The protocol, per task T blocked in the call, with T's I/O lock
// (taskIO.mu) ordering both sides; T's record (taskIO.op) is the operation
// it is blocked in:
//
//   - Before a call that may block on half (or listener) H, a caller on
//     T's goroutine takes the lock, records H, then checks T's interrupt
//     flag: if it is set, it drops the record and unwinds through
//     CheckInterrupt, poisoning a half H as a cut would (CheckInterrupt
//     clears a stale flag and returns instead, and it records again). It
//     releases the lock and calls the kernel.
//   - Whoever sets T's interrupt flag (an expiring deadline, an abort)
//     then calls T's Unpark, which, if the flag is set and the record is
//     not nil, takes the lock and cuts the recorded operation: it shuts
//     the half down in the kernel (the blocked read returns end of
//     stream, the blocked write fails; tcp's Interrupt touches no Go state
//     the operation uses) or cuts that one Accept (tcp.AcceptCall: a
//     deadline in the past, the listener stays open), and marks it cut. The
//     recorder stores the record then loads the flag; the interrupter
//     stores the flag then loads the record (sequentially consistent
//     atomics): one of them sees the other's store, so no interruption is
//     lost. (T's taskIO exists before anything is recorded: it is made
//     when T's goroutine is marked, below.)
//   - When the kernel call returns, the caller takes the lock and clears
//     the record. If H was cut, H stays poisoned (ErrClosed from then on)
//     and the caller unwinds through CheckInterrupt, so the Timeout
//     returns ErrTimeout as in the simulator. If the flag was stale (a
//     deadline that expired as its Timeout returned), CheckInterrupt
//     returns and so does the operation, with H poisoned.
//
// What a cut leaves behind is what the simulator leaves (the nettest
// cases TimeoutInAcceptKeepsListener, AbortInAcceptKeepsListener,
// AbortOfListenerOwnerKeepsListener, TimeoutInRecvPoisonsStream,
// InterruptedRecvPoisonsStream, the AbortOf* ones of nettest/owner.go and
// the Canceled* ones pin it on both runtimes):
//
//   - Accept: the listener stays open. The record is one tcp.AcceptCall
//     per Accept, not the listener; cutting it wakes every Accept blocked
//     on the socket (a deadline in the past), and tcp makes the ones not
//     cut wait and block again, and hands a connection the cut Accept took
//     to the next Accept, as the simulator leaves it queued. Aborting the
//     listener's owner does not close it either (the simulator's network
//     knows no owners); it cuts only Accepts of goroutines that are no
//     task's, with ErrClosed. The runtime closes the listener at shutdown.
//   - Recv: the stream is poisoned, bytes already buffered lost, as the
//     simulator's parked Recv poisons its stream when it unwinds; the
//     sink and the peer keep working.
//   - Send: the sink is poisoned and its write half shut down: the peer's
//     stream ends (ErrRecvFailed) after the bytes that left, part of the
//     Send's perhaps, which breaks any framing; the simulator's cut Send
//     likewise ends the peer's stream after the bytes that left: those the
//     stream had pulled and at most its buffer beyond them (nettest
//     CutSendEndsPeersStream, CutSendDeliversStrictPrefix).
//
//   - Connections: an abort cuts only the call the aborted task is blocked
//     in. A connection the task dialled, or that a listener it bound
//     accepted, stays open for the task it was handed to, as in the
//     simulator; the owner's abort cuts only the calls on it of goroutines
//     that are no task's (see conn). The runtime closes it at shutdown.
//
// An operation that cannot block (Recv of bytes already buffered) takes
// none of this.

// ioTarget is one half of a connection, or a listener, as something a
// blocked operation can be cut out of.
type ioTarget struct {
	inner interrupter          // the half or listener of the device below
	cut   atomic.Bool          // cut by an interruption: poisoned from then on
	half  bool                 // a half: a call that unwinds its task poisons it, even before it blocks
	last  atomic.Pointer[task] // the task that last called it, if not its owner (a cache for blockedTask)
}

// blockedTask returns the task whose goroutine the caller runs on, so that
// an interruption of that task cuts the operation on tg it is about to
// block in: owner (a pointer comparison), the task that last used tg, or
// the one the runtime's table gives. It returns nil if the caller is no
// marked task's goroutine.
func (rt *runtime) blockedTask(owner *task, tg *ioTarget) *task {
	if owner.onOwnGoroutine() {
		return owner
	}
	if t := tg.last.Load(); t != nil && t.onOwnGoroutine() {
		return t
	}
	t := rt.marked.find(getProfLabel())
	if t != nil {
		tg.last.Store(t)
	}
	return t
}

// markedTasks maps the label set (marker) of every live marked task's
// goroutine to the task.
type markedTasks struct {
	mu struct {
		sync.Mutex
		m map[unsafe.Pointer]*task
	}
}

func (r *markedTasks) add(marker unsafe.Pointer, t *task) {
	r.mu.Lock()
	if r.mu.m == nil {
		r.mu.m = make(map[unsafe.Pointer]*task)
	}
	r.mu.m[marker] = t
	r.mu.Unlock()
}

// remove drops t's entry, if it is marked. A task calls it as it ends.
func (r *markedTasks) remove(t *task) {
	x := t.io.Load()
	if x == nil {
		return
	}
	if m := x.marker.Load(); m != nil {
		r.mu.Lock()
		delete(r.mu.m, unsafe.Pointer(m))
		r.mu.Unlock()
	}
}

// find returns the live task whose marker is labels, or nil.
func (r *markedTasks) find(labels unsafe.Pointer) *task {
	if labels == nil {
		return nil
	}
	r.mu.Lock()
	t := r.mu.m[labels]
	r.mu.Unlock()
	return t
}

// interrupter is what the interruption layer needs of the device under
// it (network/tcp's listeners, accept calls and halves, the cancel of a
// Dial): Interrupt cuts short, from another goroutine, the operation
// blocked on it, without touching the Go state that operation uses. For a
// half it shuts the half down in the kernel (the blocked Recv or Send
// fails, the half is poisoned); for an accept call it cuts that Accept
// and leaves the listener open; for a listener (the shutdown) it closes
// it. It is safe while the operation
// runs; the half or listener must still be closed.
type interrupter interface{ Interrupt() }

// init makes tg the target of inner, which must be an interrupter: the
// device under the interruption layer is network/tcp, whose listeners and
// halves all are (TestDeviceInterrupts).
func (tg *ioTarget) init(inner any) {
	i, ok := inner.(interrupter)
	if !ok {
		panic(fmt.Sprintf("realtime: the network device returned a %T, which has no Interrupt method", inner))
	}
	tg.inner = i
}

// beginIO records tg as t's blocked I/O if the caller runs on t's
// goroutine; it reports whether it did (and so whether endIO must be
// called). If t has been interrupted it unwinds t through CheckInterrupt
// instead (which clears a stale flag and returns, and the call goes on).
func (t *task) beginIO(tg *ioTarget) bool {
	if !t.onOwnGoroutine() {
		return false
	}
	x := t.io.Load() // made by markGoroutine
	x.mu.Lock()
	// Record, then check the flag: the interrupter sets the flag, then
	// looks at the record, so one of the two sees the other.
	x.op.Store(tg)
	for t.ct.InterruptPending() {
		x.op.Store(nil)
		x.mu.Unlock()
		t.unwindBefore(tg) // unwinds, or clears a stale flag
		x.mu.Lock()
		x.op.Store(tg)
	}
	x.mu.Unlock()
	return true
}

// unwindBefore is CheckInterrupt for a call on tg that has not begun. If
// the task unwinds and tg is a half, the half is cut first, as a call cut
// while blocked leaves it: poisoned and shut down in the kernel (for a
// sink, the peer's stream ends after the bytes already sent). Whether an
// interruption lands before the call blocks or while it blocks is a
// matter of timing, so what the call leaves behind must not depend on it,
// and the simulator's Send and Recv cut their half whenever their park
// unwinds (nettest InterruptedRecvPoisonsStream,
// InterruptedSendPoisonsSink).
func (t *task) unwindBefore(tg *ioTarget) {
	if !tg.half {
		t.ct.CheckInterrupt()
		return
	}
	unwound := true
	defer func() {
		if unwound && tg.cut.CompareAndSwap(false, true) {
			tg.inner.Interrupt()
		}
	}()
	t.ct.CheckInterrupt()
	unwound = false
}

// endIO clears the record made by beginIO. It reports whether tg was cut
// meanwhile: then the caller releases what the operation returned and
// unwinds t through CheckInterrupt.
func (t *task) endIO(tg *ioTarget) bool {
	x := t.io.Load()
	x.mu.Lock()
	x.op.Store(nil)
	x.mu.Unlock()
	return tg.cut.Load()
}

// interruptIO cuts the I/O t is blocked in, if t is interrupted. Unpark
// calls it, on any goroutine, with t's taskIO.
func (t *task) interruptIO(x *taskIO) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if tg := x.op.Load(); tg != nil && t.ct.InterruptPending() && tg.cut.CompareAndSwap(false, true) {
		tg.inner.Interrupt()
	}
}

// Which goroutine is a task's? Go has no goroutine-local storage, but
// every goroutine carries a profiler label set (runtime/pprof), inherited
// by the goroutines it starts. The first time a task blocks through its
// own context (Context.CurrentTask, which every blocking primitive and
// simrt.Timeout call, on the task's goroutine since a task blocks only
// through its own context), markGoroutine gives its goroutine a label set
// of its own, simrt_task=<name>, and remembers its address; a network
// operation compares the caller's label set with its owner's (a pointer
// comparison). Tasks are started with the label set their spawner had
// before it was marked, so a task spawned by a marked one is not taken for
// it. A task that replaces its labels itself (pprof.Do, SetGoroutineLabels)
// is not recognised while they are in place, and after pprof.Do returns
// too (it puts back the labels of the context.Context it was given, not
// the marker): its Timeouts then act on a blocked network operation only
// when it returns, as before.

// markGoroutine gives t's goroutine its own label set, once, and enters
// it in the runtime's table of marked tasks. Once the runtime has opened a
// listener or a connection, every task is marked as its goroutine starts,
// so that a task handed a connection (a handler spawned by an accept loop)
// is known before its first blocking call, which may be on that
// connection; before that, a task is marked when it first blocks through
// its context.
func (t *task) markGoroutine() {
	x := t.ioState()
	if x.marker.Load() != nil {
		return
	}
	t.ct.SetWaiter(&x.waiter) // this is the task's goroutine, about to block
	x.unmarked = getProfLabel()
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), shell.ScopeOf(&t.ctx.shellContext).ProfLabels()))
	m := getProfLabel()
	x.marker.Store((*struct{})(m))
	t.rt().marked.add(m, t)
}

// marked reports whether markGoroutine has run.
func (t *task) marked() bool {
	x := t.io.Load()
	return x != nil && x.marker.Load() != nil
}

// unmarkGoroutine gives t's goroutine back the label set it had before
// markGoroutine. Start calls it for the root task, whose goroutine is the
// caller's.
func (t *task) unmarkGoroutine() {
	if t.onOwnGoroutine() {
		setProfLabel(t.io.Load().unmarked)
	}
}

// onOwnGoroutine reports whether the caller runs on t's goroutine, as far
// as markGoroutine can tell.
func (t *task) onOwnGoroutine() bool {
	x := t.io.Load()
	if x == nil {
		return false
	}
	m := x.marker.Load()
	return m != nil && unsafe.Pointer(m) == getProfLabel()
}

// start runs t on a new goroutine, t being spawned from parent: if the
// caller runs on parent's goroutine and so carries parent's marker, the
// new goroutine gets parent's labels as they were before marking (the
// caller's are put back at once).
func (t *task) start(parent *task) {
	if x := parent.io.Load(); x != nil {
		if m := x.marker.Load(); m != nil && unsafe.Pointer(m) == getProfLabel() {
			setProfLabel(x.unmarked)
			go t.run()
			setProfLabel(unsafe.Pointer(m))
			return
		}
	}
	go t.run()
}
