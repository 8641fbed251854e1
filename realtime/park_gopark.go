//go:build !race && !asan && !msan

package realtime

import "unsafe"

// A task's goroutine sleeps in the Go scheduler itself, as a goroutine
// blocked on a Go channel does: Park commits its goroutine (the runtime's
// g) into the permit from the scheduler's stack once the goroutine is
// marked waiting, and the Unpark that takes it makes that goroutine
// runnable. A wake is one compare-and-swap and one goready, with no
// semaphore table lock, hash or queue between them.
//
// The race detector cannot see the commit (it runs without a race
// context), so a race build sleeps on a runtime semaphore instead
// (park_sema.go), with the same permit protocol; so do the asan and msan
// builds, whose instrumentation the commit, on the scheduler's stack,
// should not meet either.

// sleeper is what a task's taskIO needs to sleep: where the commit says
// whether the goroutine went to sleep. The token of an asleep task is the
// address of its goroutine's g, as a uintptr: the commit must not run a
// write barrier, and the runtime never frees a g.
type sleeper struct{ slept bool }

// g stands for the runtime's goroutine record, which is only ever handled
// by address.
type g struct{}

// gopark and goready are the scheduler's park and wake; the Go runtime
// keeps both, with these signatures, for outside users (go.dev/issue/67401).
// The reason and trace reason passed are the zero ones, which every Go
// version has (a goroutine dump shows the task as "waiting").
//
//go:linkname gopark runtime.gopark
func gopark(commit func(*g, unsafe.Pointer) bool, arg unsafe.Pointer, reason, traceReason uint8, traceskip int)

//go:linkname goready runtime.goready
func goready(gp *g, traceskip int)

// sleep parks the calling goroutine, the task's, until wake is called
// with its token, unless the permit is no longer nil when it commits (a
// wake came first). It reports whether it slept.
func (x *taskIO) sleep() bool {
	gopark(commitSleep, unsafe.Pointer(x), 0, 0, 1)
	return x.slept // written by commitSleep, on this goroutine's behalf
}

// commitSleep runs on the scheduler's stack once gp is marked waiting: it
// publishes gp as the token in the permit of taskIO x, so that an Unpark
// may wake it from then on, or reports (false) that a wake came first, and
// the scheduler resumes gp at once.
//
//go:nosplit
func commitSleep(gp *g, x unsafe.Pointer) bool {
	io := (*taskIO)(x)
	io.slept = io.permit.CompareAndSwap(permitNone, uintptr(unsafe.Pointer(gp)))
	return io.slept
}

// wake makes the goroutine whose token is runnable. The caller took the
// token out of the permit, so it is the only one to wake that goroutine.
func (*taskIO) wake(token uintptr) { goready(*(**g)(unsafe.Pointer(&token)), 1) }
