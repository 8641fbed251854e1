package simrthook

import (
	"sync/atomic"
	"unsafe"
)

// Std is the standard library's half of a simulation's hooks: what the
// overlaid sync, internal/sync, time, math/rand, math/rand/v2,
// hash/maphash and crypto/internal/sysrand call in place of the Go runtime
// (their runtime-facing functions, docs/PLAIN-GO.md). Implemented by
// simrt's plain runtime over plainsim.Sim (internal/plainsim). Every method is called
// only after Active, from a task of the simulation.
type Std interface {
	// Semacquire waits until *s > 0 and decrements it; kind is one of the
	// Sema constants (what waits, for reports); lifo queues the task first;
	// lock is the internal/sync.Mutex of a SemaMutex wait (nil otherwise).
	Semacquire(s *uint32, kind int, lifo bool, lock any)
	// MutexLocked and MutexUnlocked tell who holds the Mutex lock (an
	// *internal/sync.Mutex), for reports.
	MutexLocked(lock any)
	MutexUnlocked(lock any)
	// Semrelease increments *s and wakes a waiter.
	Semrelease(s *uint32, handoff bool)
	// NotifyListAdd, NotifyListWait, NotifyListNotifyAll and
	// NotifyListNotifyOne are sync.Cond's notify list at l.
	NotifyListAdd(l unsafe.Pointer) uint32
	NotifyListWait(l unsafe.Pointer, ticket uint32)
	NotifyListNotifyAll(l unsafe.Pointer)
	NotifyListNotifyOne(l unsafe.Pointer)
	// SpinPoint is a TryLock or TryRLock of the lock key: a scheduling
	// point that forces a yield when the task keeps trying one lock.
	SpinPoint(key any)
	// Now is time.now: the wall clock and the monotonic reading.
	Now() (sec int64, nsec int32, mono int64)
	// Nano is time.runtimeNano, the clock of timers' due times.
	Nano() int64
	// Sleep is time.Sleep (d in nanoseconds).
	Sleep(d int64)
	// NewTimer starts the timer at t (time.newTimer's arguments; isChan
	// for a channel timer); StopTimer and ResetTimer report ok false for
	// a timer the simulation did not make.
	NewTimer(t unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool)
	StopTimer(t unsafe.Pointer) (pending, ok bool)
	ResetTimer(t unsafe.Pointer, when, period int64) (pending, ok bool)
	// Uint64 is runtime.rand; Read fills b with random bytes.
	Uint64() uint64
	Read(b []byte)
	// SetWaitGroupCount tells the simulation how to read a WaitGroup's
	// counter from its semaphore's address (see SetWaitGroupCount).
	SetWaitGroupCount(f func(sema *uint32) int)
}

// Semaphore users, Std.Semacquire's kind. The values are
// plainsim.SemaKind's.
const (
	SemaPlain = iota
	SemaMutex
	SemaRWMutexR
	SemaRWMutex
	SemaWaitGroup
)

var (
	std            atomic.Pointer[Std]
	waitGroupCount func(sema *uint32) int // set by sync's init, read-only after
)

// InstallStd installs the standard library's hooks of the simulation that
// Install installs (call it before Install, and UninstallStd after
// Uninstall). One is installed at a time.
func InstallStd(h Std) {
	if h == nil {
		panic("simrthook: InstallStd(nil)")
	}
	if !std.CompareAndSwap(nil, &h) {
		panic("simrthook: standard-library hooks already installed (one plain-Go simulation at a time)")
	}
	if waitGroupCount != nil {
		h.SetWaitGroupCount(waitGroupCount)
	}
}

// UninstallStd removes the hooks InstallStd installed.
func UninstallStd() { std.Store(nil) }

// SetWaitGroupCount is called by the overlaid sync package at init with
// the function that reads a WaitGroup's counter from its semaphore.
func SetWaitGroupCount(f func(sema *uint32) int) { waitGroupCount = f }

// stdHooks returns the installed hooks. The overlaid packages call the
// functions below only when Active, which implies installed hooks; a
// simulation installed without them fails here with a clear message.
func stdHooks() Std {
	if p := std.Load(); p != nil {
		return *p
	}
	panic("simrthook: a plain-Go simulation is active but its standard-library hooks are not installed (InstallStd)")
}

// The functions the overlaid standard library calls, one per hook.

func Semacquire(s *uint32, kind int, lifo bool, lock any) {
	stdHooks().Semacquire(s, kind, lifo, lock)
}
func MutexLocked(lock any)                      { stdHooks().MutexLocked(lock) }
func MutexUnlocked(lock any)                    { stdHooks().MutexUnlocked(lock) }
func Semrelease(s *uint32, handoff bool)        { stdHooks().Semrelease(s, handoff) }
func NotifyListAdd(l unsafe.Pointer) uint32     { return stdHooks().NotifyListAdd(l) }
func NotifyListWait(l unsafe.Pointer, t uint32) { stdHooks().NotifyListWait(l, t) }
func NotifyListNotifyAll(l unsafe.Pointer)      { stdHooks().NotifyListNotifyAll(l) }
func NotifyListNotifyOne(l unsafe.Pointer)      { stdHooks().NotifyListNotifyOne(l) }
func SpinPoint(key any)                         { stdHooks().SpinPoint(key) }
func Now() (sec int64, nsec int32, mono int64)  { return stdHooks().Now() }
func Nano() int64                               { return stdHooks().Nano() }
func Sleep(d int64)                             { stdHooks().Sleep(d) }
func Uint64() uint64                            { return stdHooks().Uint64() }
func Read(b []byte)                             { stdHooks().Read(b) }

func NewTimer(t unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool) {
	stdHooks().NewTimer(t, when, period, f, arg, isChan)
}

func StopTimer(t unsafe.Pointer) (pending, ok bool) { return stdHooks().StopTimer(t) }

func ResetTimer(t unsafe.Pointer, when, period int64) (pending, ok bool) {
	return stdHooks().ResetTimer(t, when, period)
}
