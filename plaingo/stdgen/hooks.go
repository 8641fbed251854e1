package stdgen

// hooks lists what the plain-Go overlay changes in the standard library of
// Go 1.26, the runtime-facing seam of sync, time and randomness
// (docs/PLAIN-GO.md, "sync, time and randomness"). Each entry names a
// bodyless function the runtime provides; the generator renames it to
// simrtNative_<name> and adds a wrapper under the original name that calls
// simrthook inside a simulation and the native function outside one.
//
// A function the runtime pushes into the package (//go:linkname x pkg.F in
// package runtime) cannot get a body in the package: the linker refuses a
// second definition of pkg.F ("duplicated definition of symbol time.Sleep,
// from runtime and time", measured on Go 1.26.8). So for those (push) the
// runtime's linkname line is retargeted to pkg.simrtNative_F as well; only
// linkname lines of the runtime change, nothing else in it. Functions the
// package pulls from the runtime (//go:linkname F runtime.f) need no
// change in the runtime.
var hooks = []hook{
	// sync: Mutex (through internal/sync), RWMutex, WaitGroup, Cond.
	{pkg: "sync", name: "runtime_Semacquire", push: true, wrapper: `func runtime_Semacquire(s *uint32) {
	if simrthook.Active() {
		simrthook.Semacquire(s, simrthook.SemaPlain, false, nil)
		return
	}
	simrtNative_runtime_Semacquire(s)
}`},
	{pkg: "sync", name: "runtime_SemacquireWaitGroup", push: true, wrapper: `func runtime_SemacquireWaitGroup(s *uint32, synctestDurable bool) {
	if simrthook.Active() {
		simrthook.Semacquire(s, simrthook.SemaWaitGroup, false, nil)
		return
	}
	simrtNative_runtime_SemacquireWaitGroup(s, synctestDurable)
}`},
	// skipframes counts from the caller of the runtime function: the
	// wrapper is one frame more.
	{pkg: "sync", name: "runtime_SemacquireRWMutexR", push: true, wrapper: `func runtime_SemacquireRWMutexR(s *uint32, lifo bool, skipframes int) {
	if simrthook.Active() {
		simrthook.Semacquire(s, simrthook.SemaRWMutexR, lifo, nil)
		return
	}
	simrtNative_runtime_SemacquireRWMutexR(s, lifo, skipframes+1)
}`},
	{pkg: "sync", name: "runtime_SemacquireRWMutex", push: true, wrapper: `func runtime_SemacquireRWMutex(s *uint32, lifo bool, skipframes int) {
	if simrthook.Active() {
		simrthook.Semacquire(s, simrthook.SemaRWMutex, lifo, nil)
		return
	}
	simrtNative_runtime_SemacquireRWMutex(s, lifo, skipframes+1)
}`},
	{pkg: "sync", name: "runtime_Semrelease", push: true, wrapper: `func runtime_Semrelease(s *uint32, handoff bool, skipframes int) {
	if simrthook.Active() {
		simrthook.Semrelease(s, handoff)
		return
	}
	simrtNative_runtime_Semrelease(s, handoff, skipframes+1)
}`},
	{pkg: "sync", name: "runtime_notifyListAdd", push: true, wrapper: `func runtime_notifyListAdd(l *notifyList) uint32 {
	if simrthook.Active() {
		return simrthook.NotifyListAdd(unsafe.Pointer(l))
	}
	return simrtNative_runtime_notifyListAdd(l)
}`},
	{pkg: "sync", name: "runtime_notifyListWait", push: true, wrapper: `func runtime_notifyListWait(l *notifyList, t uint32) {
	if simrthook.Active() {
		simrthook.NotifyListWait(unsafe.Pointer(l), t)
		return
	}
	simrtNative_runtime_notifyListWait(l, t)
}`},
	{pkg: "sync", name: "runtime_notifyListNotifyAll", push: true, wrapper: `func runtime_notifyListNotifyAll(l *notifyList) {
	if simrthook.Active() {
		simrthook.NotifyListNotifyAll(unsafe.Pointer(l))
		return
	}
	simrtNative_runtime_notifyListNotifyAll(l)
}`},
	{pkg: "sync", name: "runtime_notifyListNotifyOne", push: true, wrapper: `func runtime_notifyListNotifyOne(l *notifyList) {
	if simrthook.Active() {
		simrthook.NotifyListNotifyOne(unsafe.Pointer(l))
		return
	}
	simrtNative_runtime_notifyListNotifyOne(l)
}

// simrtWaitGroupCount reads the counter of the WaitGroup whose semaphore is
// at sema, for the simulator's stall report.
func simrtWaitGroupCount(sema *uint32) int {
	wg := (*WaitGroup)(unsafe.Add(unsafe.Pointer(sema), -int(unsafe.Offsetof((*WaitGroup)(nil).sema))))
	return int(int32(wg.state.Load() >> 32))
}

func init() { simrthook.SetWaitGroupCount(simrtWaitGroupCount) }`},
	// sync.Pool: in a simulation Get always makes a new value and Put drops
	// it, as if the collector had emptied the pool before every Get, so
	// that what Get returns does not depend on the collector or on which P
	// the goroutine ran.
	{pkg: "sync", name: "(*Pool).Get", prepend: `	if simrthook.Active() {
		if p.New != nil {
			return p.New()
		}
		return nil
	}
`},
	// Put of a non-nil value on a nil *Pool panics, as Go's does (its pin
	// dereferences p; Go's TestNilPool checks it).
	{pkg: "sync", name: "(*Pool).Put", prepend: `	if simrthook.Active() {
		if x != nil {
			_ = p.local
		}
		return
	}
`},
	// Locking is a scheduling point, where Go interleaves goroutines (issue
	// 31 item 7). TryLock never parks: a task spinning on it is made to
	// yield now and then (plainsim.Sim.SpinPoint), so the holder
	// runs.
	// Lock also records the holder for reports (the key is the
	// internal/sync.Mutex, which runtime_SemacquireMutex passes too), once
	// it has the lock: the prepend does Lock's work itself (pinBody: a
	// release that changes Lock's body is refused), not through a defer,
	// which would also run when the task unwinds from the wait.
	{pkg: "sync", name: "(*Mutex).Lock", pinBody: true, prepend: `	if simrthook.Active() {
		simrthook.SpinPoint(m)
		m.mu.Lock()
		simrthook.MutexLocked(&m.mu)
		return
	}
`},
	{pkg: "sync", name: "(*Mutex).Unlock", prepend: `	if simrthook.Active() {
		simrthook.MutexUnlocked(&m.mu)
	}
`},
	{pkg: "sync", name: "(*RWMutex).Lock", prepend: spinPrepend("rw")},
	{pkg: "sync", name: "(*RWMutex).RLock", prepend: spinPrepend("rw")},
	{pkg: "sync", name: "(*Mutex).TryLock", prepend: spinPrepend("m")},
	{pkg: "sync", name: "(*RWMutex).TryLock", prepend: spinPrepend("rw")},
	{pkg: "sync", name: "(*RWMutex).TryRLock", prepend: spinPrepend("rw")},

	// internal/sync: the Mutex slow path of sync.Mutex and RWMutex.
	{pkg: "internal/sync", name: "runtime_SemacquireMutex", push: true, wrapper: `func runtime_SemacquireMutex(s *uint32, lifo bool, skipframes int) {
	if simrthook.Active() {
		m := (*Mutex)(unsafe.Add(unsafe.Pointer(s), -int(unsafe.Offsetof((*Mutex)(nil).sema))))
		simrthook.Semacquire(s, simrthook.SemaMutex, lifo, m)
		return
	}
	simrtNative_runtime_SemacquireMutex(s, lifo, skipframes+1)
}`, imports: []string{"unsafe"}},
	{pkg: "internal/sync", name: "runtime_Semrelease", push: true, wrapper: `func runtime_Semrelease(s *uint32, handoff bool, skipframes int) {
	if simrthook.Active() {
		simrthook.Semrelease(s, handoff)
		return
	}
	simrtNative_runtime_Semrelease(s, handoff, skipframes+1)
}`},
	// A task never spins: the task holding the Mutex cannot run meanwhile.
	{pkg: "internal/sync", name: "runtime_canSpin", push: true, wrapper: `func runtime_canSpin(i int) bool {
	if simrthook.Active() {
		return false
	}
	return simrtNative_runtime_canSpin(i)
}`},
	// The Mutex's starvation mode reads this clock: simulated time keeps
	// it deterministic.
	{pkg: "internal/sync", name: "runtime_nanotime", push: true, wrapper: `func runtime_nanotime() int64 {
	if simrthook.Active() {
		return simrthook.Nano()
	}
	return simrtNative_runtime_nanotime()
}`},
	// internal/sync's HashTrieMap (sync.Map) seeds its hash, which orders
	// Range: drawn from the stream in a simulation.
	{pkg: "internal/sync", name: "runtime_rand", wrapper: randWrapper},

	// time: the clock, Sleep, and the timers of Timer, Ticker, AfterFunc.
	{pkg: "time", name: "Sleep", push: true, wrapper: `func Sleep(d Duration) {
	if simrthook.Active() {
		simrthook.Sleep(int64(d))
		return
	}
	simrtNative_Sleep(d)
}`},
	// A timer made in a simulation is allocated here, not by the runtime:
	// the padding gives it the size of the runtime's timer (about 20
	// words), zeroed, so that a stray native Stop or Reset of it sees a
	// timer that never ran instead of memory past its end.
	{pkg: "time", name: "newTimer", push: true, wrapper: `func newTimer(when, period int64, f func(any, uintptr, int64), arg any, cp unsafe.Pointer) *Timer {
	if simrthook.Active() {
		t := &struct {
			Timer
			_ [32]uintptr
		}{}
		t.initTimer = true
		simrthook.NewTimer(unsafe.Pointer(&t.Timer), when, period, f, arg, cp != nil)
		return &t.Timer
	}
	return simrtNative_newTimer(when, period, f, arg, cp)
}`},
	{pkg: "time", name: "stopTimer", push: true, wrapper: `func stopTimer(t *Timer) bool {
	if simrthook.Active() {
		if pending, ok := simrthook.StopTimer(unsafe.Pointer(t)); ok {
			return pending
		}
	}
	return simrtNative_stopTimer(t)
}`},
	{pkg: "time", name: "resetTimer", push: true, wrapper: `func resetTimer(t *Timer, when, period int64) bool {
	if simrthook.Active() {
		if pending, ok := simrthook.ResetTimer(unsafe.Pointer(t), when, period); ok {
			return pending
		}
	}
	return simrtNative_resetTimer(t, when, period)
}`},
	{pkg: "time", name: "now", push: true, wrapper: `func now() (sec int64, nsec int32, mono int64) {
	if simrthook.Active() {
		return simrthook.Now()
	}
	return simrtNative_now()
}`},
	{pkg: "time", name: "runtimeNow", push: true, wrapper: `func runtimeNow() (sec int64, nsec int32, mono int64) {
	if simrthook.Active() {
		return simrthook.Now()
	}
	return simrtNative_runtimeNow()
}`},
	{pkg: "time", name: "runtimeNano", push: true, wrapper: `func runtimeNano() int64 {
	if simrthook.Active() {
		return simrthook.Nano()
	}
	return simrtNative_runtimeNano()
}`},

	// Randomness: the global functions of math/rand and math/rand/v2,
	// hash/maphash seeds, and everything crypto reads from the system.
	{pkg: "math/rand", name: "runtime_rand", wrapper: randWrapper},
	{pkg: "math/rand/v2", name: "runtime_rand", wrapper: randWrapper},
	{pkg: "hash/maphash", name: "runtime_rand", wrapper: randWrapper},
	{pkg: "crypto/internal/sysrand", name: "Read", prepend: `	if simrthook.Active() {
		simrthook.Read(b)
		return
	}
`},
}

// spinPrepend is the scheduling point of a TryLock on the lock recv.
func spinPrepend(recv string) string {
	return "\tif simrthook.Active() {\n\t\tsimrthook.SpinPoint(" + recv + ")\n\t}\n"
}

const randWrapper = `func runtime_rand() uint64 {
	if simrthook.Active() {
		return simrthook.Uint64()
	}
	return simrtNative_runtime_rand()
}`

// hook is one change to a standard-library package.
type hook struct {
	pkg  string // import path
	name string // function, or (*T).Method for prepend
	// push: the runtime defines pkg.name through a linkname push, which
	// the overlay retargets (see hooks).
	push bool
	// wrapper replaces a bodyless function: the new function under the
	// original name. The original becomes simrtNative_<name>.
	wrapper string
	// prepend is inserted at the start of the body of a function that has
	// one.
	prepend string
	// pinBody adds the function's body to its fingerprint, for a prepend
	// that repeats what the body does.
	pinBody bool
	// imports are packages the wrapper or prepend needs beside simrthook,
	// imported (again, by name) into the changed file.
	imports []string
}
