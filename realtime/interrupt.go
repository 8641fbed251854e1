package realtime

import (
	"context"
	"runtime/pprof"
	"sync/atomic"
	"unsafe"
)

// Interrupting network I/O.
//
// simrt.Timeout unwinds a task at its next park; in the simulator every
// network operation parks, so a Timeout cuts a blocked Send, Recv, Accept
// or Dial short. In production those operations block their goroutine in
// the kernel, so the runtime must cut the system call short itself.
//
// Dial carries a context: called on the goroutine of the context's task,
// the connect runs on a helper goroutine while the task parks on its
// result (see Context.Dial). Sinks, streams and listeners carry none, so
// an operation on one of them is attributed to its owner, the task whose
// context opened it (Dial, Bind; for an accepted connection, the owner of
// the listener), and is interruptible only when it runs on the owner's
// goroutine (see markGoroutine below). An operation on a half handed to
// another task is cut short by aborts and the network's timeouts only.
//
// The protocol, per owner task T, with T.ioMu ordering both sides:
//
//   - Before a call that may block on half (or listener) H, a caller on
//     T's goroutine takes T.ioMu, records H as T's I/O (T.ioOp), then
//     checks T's interrupt flag: if it is set, it drops the record and
//     unwinds through CheckInterrupt (which clears a stale flag and
//     returns instead, and it records again). It releases T.ioMu and
//     calls the kernel.
//   - Whoever sets T's interrupt flag (an expiring deadline, an abort)
//     then calls T's Unpark, which, if the flag is set and T.ioOp is not
//     nil, takes T.ioMu and cuts T.ioOp: it shuts the half down in the
//     kernel (the blocked read returns end of stream, the blocked write
//     fails; tcp's Interrupt touches no Go state the operation uses) or
//     closes the listener, and marks it cut. The recorder stores the
//     record then loads the flag; the interrupter stores the flag then
//     loads the record (sequentially consistent atomics): one of them
//     sees the other's store, so no interruption is lost.
//   - When the kernel call returns, the caller takes T.ioMu and clears
//     T.ioOp. If H was cut, H stays poisoned (ErrClosed from then on) and
//     the caller unwinds through CheckInterrupt, so the Timeout returns
//     ErrTimeout as in the simulator (what the operation returned is
//     dropped, an accepted connection closed). If the flag was stale (a
//     deadline that expired as its Timeout returned), CheckInterrupt
//     returns and so does the operation, with H poisoned.
//
// An operation that cannot block (Recv of bytes already buffered) takes
// none of this.

// ioTarget is one half of a connection, or a listener, as something a
// blocked operation can be cut out of.
type ioTarget struct {
	inner interrupter // the half or listener below the tracking layer; nil if it cannot be interrupted
	cut   atomic.Bool // cut by an interruption: poisoned from then on
}

// interrupter is a half or listener whose blocked operation another
// goroutine can cut short (network/tcp's, through network/metered):
// Interrupt shuts the half down in the kernel, or closes the listener,
// without touching the Go state the blocked operation is using.
type interrupter interface{ Interrupt() }

func newTarget(inner any) ioTarget {
	i, _ := inner.(interrupter)
	return ioTarget{inner: i}
}

// beginIO records tg as t's blocked I/O if the caller runs on t's
// goroutine; it reports whether it did (and so whether endIO must be
// called). If t has been interrupted it unwinds t through CheckInterrupt
// instead (which clears a stale flag and returns, and the call goes on).
func (t *task) beginIO(tg *ioTarget) bool {
	if !t.onOwnGoroutine() {
		return false
	}
	t.ioMu.Lock()
	// Record, then check the flag: the interrupter sets the flag, then
	// looks at the record, so one of the two sees the other.
	t.ioOp.Store(tg)
	for t.ct.InterruptPending() {
		t.ioOp.Store(nil)
		t.ioMu.Unlock()
		t.ct.CheckInterrupt() // unwinds, or clears a stale flag
		t.ioMu.Lock()
		t.ioOp.Store(tg)
	}
	t.ioMu.Unlock()
	return true
}

// endIO clears the record made by beginIO. It reports whether tg was cut
// meanwhile: then the caller releases what the operation returned and
// unwinds t through CheckInterrupt.
func (t *task) endIO(tg *ioTarget) bool {
	t.ioMu.Lock()
	t.ioOp.Store(nil)
	t.ioMu.Unlock()
	return tg.cut.Load()
}

// interruptIO cuts the I/O t is blocked in, if t is interrupted. Unpark
// calls it, on any goroutine.
func (t *task) interruptIO() {
	t.ioMu.Lock()
	defer t.ioMu.Unlock()
	if tg := t.ioOp.Load(); tg != nil && tg.inner != nil && t.ct.InterruptPending() && tg.cut.CompareAndSwap(false, true) {
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
// is not recognised while they are in place: its Timeouts then act on a
// blocked network operation only when it returns, as before.

// markGoroutine gives t's goroutine its own label set, once.
func (t *task) markGoroutine() {
	if t.marker.Load() != nil {
		return
	}
	t.unmarked = getProfLabel()
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("simrt_task", t.name())))
	t.marker.Store((*struct{})(getProfLabel()))
}

// unmarkGoroutine gives t's goroutine back the label set it had before
// markGoroutine. Start calls it for the root task, whose goroutine is the
// caller's.
func (t *task) unmarkGoroutine() {
	if t.onOwnGoroutine() {
		setProfLabel(t.unmarked)
	}
}

// onOwnGoroutine reports whether the caller runs on t's goroutine, as far
// as markGoroutine can tell.
func (t *task) onOwnGoroutine() bool {
	m := t.marker.Load()
	return m != nil && unsafe.Pointer(m) == getProfLabel()
}

// startGoroutine runs on the goroutine of a task spawned from parent: if
// that goroutine inherited parent's marker, it gets parent's labels as
// they were before marking.
func startGoroutine(parent *task) {
	if parent == nil {
		return
	}
	if m := parent.marker.Load(); m != nil && unsafe.Pointer(m) == getProfLabel() {
		setProfLabel(parent.unmarked)
	}
}

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)
