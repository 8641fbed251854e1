package deterministic

import (
	"github.com/simrt/simrt/internal/plainsim"
	"time"
	"unsafe"
)

// plainSim is the simulator's side of unmodified Go code for one run: what the
// standard library's runtime hooks reach when the overlaid sync, time and
// random packages run inside a simulation (docs/PLAIN-GO.md). Each method
// is the Go 1.26 runtime function named in its comment, on simulated time
// and the run's decision stream, and parks the running task where the Go
// runtime would park the goroutine. Every method must be called from a task
// of the run (the ones that park panic otherwise), one task at a time, as
// everything in a simulation is.
//
// The plain-Go hook installed when a plain simulation starts calls these
// methods; tests of the simulator call them directly.
type plainSim struct{ rt *runtime }

var _ plainsim.Sim = plainSim{}

func init() {
	plainsim.Of = func(ctx any) plainsim.Sim { return plainOf(ctx.(*Context)) }
}

// plainOf returns the plain-Go side of ctx's run (plainsim.Of). The timers it makes fire
// in tasks spawned below ctx (the first call's ctx, for the whole run),
// so pass the root context: stopping the run unwinds them.
func plainOf(ctx *Context) plainSim {
	rt := ctx.rt
	rt.check()
	if rt.plain.ctx == nil {
		rt.plain.ctx = ctx
	}
	return plainSim{rt}
}

// SetWaitGroupCount sets how the stall report reads the counter of a
// sync.WaitGroup from the address of its semaphore. The overlaid sync
// package supplies it, since only it knows WaitGroup's layout.
func (p plainSim) SetWaitGroupCount(f func(sema *uint32) int) { p.rt.plain.waitGroupCount = f }

// Semacquire is sync.runtime_Semacquire and its variants (Mutex, RWMutex,
// WaitGroup; kind says which, for reports): wait until *addr > 0, then
// decrement it. lifo queues the task ahead of the other waiters. lock, for
// a SemaMutex, is the Mutex's key as MutexLocked receives it, so that a
// report names its holder; nil otherwise.
func (p plainSim) Semacquire(addr *uint32, kind plainsim.SemaKind, lifo bool, lock any) {
	p.rt.semacquire(addr, kind, lifo, lock)
}

// MutexLocked records that the running task has locked the Mutex lock
// (any comparable key, the same one Semacquire gets), for reports.
func (p plainSim) MutexLocked(lock any) { p.rt.mutexLocked(lock) }

// MutexUnlocked records that the Mutex lock was unlocked.
func (p plainSim) MutexUnlocked(lock any) { p.rt.mutexUnlocked(lock) }

// Semrelease is sync.runtime_Semrelease: increment *addr and grant it to
// the first waiter, if any; handoff makes the caller a scheduling point,
// as the Go runtime yields to the waiter.
func (p plainSim) Semrelease(addr *uint32, handoff bool) { p.rt.semrelease(addr, handoff) }

// NotifyListAdd is sync.runtime_notifyListAdd: the next ticket of the
// notify list at l (a sync.Cond's).
func (p plainSim) NotifyListAdd(l unsafe.Pointer) uint32 { return p.rt.notifyListAdd(l) }

// NotifyListWait is sync.runtime_notifyListWait: park until ticket is
// notified.
func (p plainSim) NotifyListWait(l unsafe.Pointer, ticket uint32) { p.rt.notifyListWait(l, ticket) }

// NotifyListNotifyOne is sync.runtime_notifyListNotifyOne.
func (p plainSim) NotifyListNotifyOne(l unsafe.Pointer) { p.rt.notifyListNotifyOne(l) }

// NotifyListNotifyAll is sync.runtime_notifyListNotifyAll.
func (p plainSim) NotifyListNotifyAll(l unsafe.Pointer) { p.rt.notifyListNotifyAll(l) }

// SpinPoint is called at every TryLock and TryRLock of a sync.Mutex or
// RWMutex (key is the lock): a scheduling point, and a forced yield when
// the task keeps trying one lock, so that a spin on TryLock cannot keep
// the lock's holder from running.
func (p plainSim) SpinPoint(key any) { p.rt.spinPoint(key) }

// Nano is time.runtimeNano: the monotonic clock, in nanoseconds, on which
// timers' due times are given.
func (p plainSim) Nano() int64 { return p.rt.plainNano() }

// Now is time.now and time.runtimeNow: the simulated wall clock (seconds
// and nanoseconds since the Unix epoch) and the monotonic reading (Nano).
func (p plainSim) Now() (sec int64, nsec int32, mono int64) { return p.rt.plainNow() }

// Sleep is time.Sleep on simulated time.
func (p plainSim) Sleep(d time.Duration) { p.rt.plainSleep(d) }

// NewTimer is time.newTimer for the time.Timer at key: fire f(arg, 0,
// lateness) at when (on Nano's clock) in a task of its own, then every
// period if period > 0. isChan marks a channel timer (NewTimer, NewTicker,
// After, Tick), whose channel, arg, a stop or a reset drains.
func (p plainSim) NewTimer(key unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool) {
	p.rt.newPlainTimer(key, when, period, f, arg, isChan)
}

// StopTimer is time.stopTimer; ok is false when key is no timer of this
// run (one made outside it), which the Go runtime then stops.
func (p plainSim) StopTimer(key unsafe.Pointer) (pending, ok bool) { return p.rt.stopPlainTimer(key) }

// ResetTimer is time.resetTimer; ok as for StopTimer.
func (p plainSim) ResetTimer(key unsafe.Pointer, when, period int64) (pending, ok bool) {
	return p.rt.resetPlainTimer(key, when, period)
}

// Uint64 is runtime.rand for plain Go's random numbers (math/rand and
// math/rand/v2 global functions and seeds, hash/maphash seeds): an audited
// draw from the run's decision stream.
func (p plainSim) Uint64() uint64 { return p.rt.user.Uint64() }

// Read fills b from the run's decision stream (crypto/rand.Read in a
// simulation), audited as one draw per 8 bytes.
func (p plainSim) Read(b []byte) {
	for len(b) > 0 {
		v := p.rt.user.Uint64()
		for i := 0; i < 8 && len(b) > 0; i++ {
			b[0] = byte(v)
			v >>= 8
			b = b[1:]
		}
	}
}
