// Package plainsim is the seam between the simulator and the runtime side
// of plain Go (package plaingo): the simulator's tables that the overlaid
// standard library's sync, time and randomness hooks reach inside a
// simulation (docs/PLAIN-GO.md). It keeps that API out of the simulator's
// exported names: only plaingo and the simulator use it.
package plainsim

import (
	"time"
	"unsafe"
)

// SemaKind says which sync operation waits on a semaphore, for the stall
// report: the Go runtime's semaphores are one mechanism behind several
// types.
type SemaKind uint8

const (
	// SemaPlain is runtime_Semacquire: a semaphore with no named user.
	SemaPlain SemaKind = iota
	// SemaMutex is a contended sync.Mutex.Lock (runtime_SemacquireMutex,
	// which RWMutex.Lock also reaches through its writer mutex).
	SemaMutex
	// SemaRWMutexR is RWMutex.RLock waiting for a writer.
	SemaRWMutexR
	// SemaRWMutex is RWMutex.Lock waiting for readers to leave.
	SemaRWMutex
	// SemaWaitGroup is WaitGroup.Wait.
	SemaWaitGroup
)

// String names the operation as a user wrote it.
func (k SemaKind) String() string {
	switch k {
	case SemaMutex:
		return "sync.Mutex.Lock"
	case SemaRWMutexR:
		return "sync.RWMutex.RLock"
	case SemaRWMutex:
		return "sync.RWMutex.Lock"
	case SemaWaitGroup:
		return "sync.WaitGroup.Wait"
	}
	return "sync semaphore"
}

// Sim is the simulator's side of unmodified Go code for one run. Each
// method is the Go runtime function named in its comment, on simulated time
// and the run's decision stream, and parks the running task where the Go
// runtime would park the goroutine. Every method must be called from a task
// of the run (the ones that park panic otherwise), one task at a time, as
// everything in a simulation is.
type Sim interface {
	// SetWaitGroupCount sets how the stall report reads the counter of a
	// sync.WaitGroup from the address of its semaphore. The overlaid sync
	// package supplies it, since only it knows WaitGroup's layout.
	SetWaitGroupCount(f func(sema *uint32) int)
	// Semacquire is sync.runtime_Semacquire and its variants (Mutex, RWMutex,
	// WaitGroup; kind says which, for reports): wait until *addr > 0, then
	// decrement it. lifo queues the task ahead of the other waiters. lock, for
	// a SemaMutex, is the Mutex's key as MutexLocked receives it, so that a
	// report names its holder; nil otherwise.
	Semacquire(addr *uint32, kind SemaKind, lifo bool, lock any)
	// MutexLocked records that the running task has locked the Mutex lock
	// (any comparable key, the same one Semacquire gets), for reports.
	MutexLocked(lock any)
	// MutexUnlocked records that the Mutex lock was unlocked.
	MutexUnlocked(lock any)
	// Semrelease is sync.runtime_Semrelease: increment *addr and grant it to
	// the first waiter, if any; handoff makes the caller a scheduling point,
	// as the Go runtime yields to the waiter.
	Semrelease(addr *uint32, handoff bool)
	// NotifyListAdd is sync.runtime_notifyListAdd: the next ticket of the
	// notify list at l (a sync.Cond's).
	NotifyListAdd(l unsafe.Pointer) uint32
	// NotifyListWait is sync.runtime_notifyListWait: park until ticket is
	// notified.
	NotifyListWait(l unsafe.Pointer, ticket uint32)
	// NotifyListNotifyOne is sync.runtime_notifyListNotifyOne.
	NotifyListNotifyOne(l unsafe.Pointer)
	// NotifyListNotifyAll is sync.runtime_notifyListNotifyAll.
	NotifyListNotifyAll(l unsafe.Pointer)
	// SpinPoint is called at every TryLock and TryRLock of a sync.Mutex or
	// RWMutex (key is the lock): a scheduling point, and a forced yield when
	// the task keeps trying one lock, so that a spin on TryLock cannot keep
	// the lock's holder from running.
	SpinPoint(key any)
	// Nano is time.runtimeNano: the monotonic clock, in nanoseconds, on which
	// timers' due times are given.
	Nano() int64
	// Now is time.now and time.runtimeNow: the simulated wall clock (seconds
	// and nanoseconds since the Unix epoch) and the monotonic reading (Nano).
	Now() (sec int64, nsec int32, mono int64)
	// Sleep is time.Sleep on simulated time.
	Sleep(d time.Duration)
	// NewTimer is time.newTimer for the time.Timer at key: fire f(arg, 0,
	// lateness) at when (on Nano's clock) in a task of its own, then every
	// period if period > 0. isChan marks a channel timer (NewTimer, NewTicker,
	// After, Tick), whose channel, arg, a stop or a reset drains.
	NewTimer(key unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool)
	// StopTimer is time.stopTimer; ok is false when key is no timer of this
	// run (one made outside it), which the Go runtime then stops.
	StopTimer(key unsafe.Pointer) (pending, ok bool)
	// ResetTimer is time.resetTimer; ok as for StopTimer.
	ResetTimer(key unsafe.Pointer, when, period int64) (pending, ok bool)
	// Uint64 is runtime.rand for plain Go's random numbers (math/rand and
	// math/rand/v2 global functions and seeds, hash/maphash seeds): an audited
	// draw from the run's decision stream.
	Uint64() uint64
	// Read fills b from the run's decision stream (crypto/rand.Read in a
	// simulation), audited as one draw per 8 bytes.
	Read(b []byte)
}

// Of returns the plain-Go side of the run of ctx, a *deterministic.Context
// (pass the root's: the timers it makes fire in tasks spawned below it, so
// stopping the run unwinds them). The simulator sets it when its package is
// initialised; it is never changed after.
var Of func(ctx any) Sim
