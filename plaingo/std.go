//go:build simrt_plain

package plaingo

import (
	"simrthook"
	"time"
	"unsafe"

	"github.com/simrt/simrt/internal/plainsim"
)

// stdHooks is the simulation's simrthook.Std: the standard library's
// runtime-facing functions (sync's semaphores and notify lists, time's
// clock, Sleep and timers, randomness) on the simulator's tables of the
// run (plainsim.Sim).
type stdHooks struct{ p plainsim.Sim }

var _ simrthook.Std = stdHooks{}

// installStd installs the standard library's hooks of s's run; s.install
// calls it.
func (s *sim) installStd() { simrthook.InstallStd(stdHooks{plainsim.Of(s.root)}) }

// uninstallStd removes them; s.uninstall calls it.
func (s *sim) uninstallStd() { simrthook.UninstallStd() }

func (h stdHooks) Semacquire(addr *uint32, kind int, lifo bool, lock any) {
	h.p.Semacquire(addr, plainsim.SemaKind(kind), lifo, lock)
}
func (h stdHooks) MutexLocked(lock any)                       { h.p.MutexLocked(lock) }
func (h stdHooks) MutexUnlocked(lock any)                     { h.p.MutexUnlocked(lock) }
func (h stdHooks) Semrelease(addr *uint32, handoff bool)      { h.p.Semrelease(addr, handoff) }
func (h stdHooks) NotifyListAdd(l unsafe.Pointer) uint32      { return h.p.NotifyListAdd(l) }
func (h stdHooks) NotifyListWait(l unsafe.Pointer, t uint32)  { h.p.NotifyListWait(l, t) }
func (h stdHooks) NotifyListNotifyAll(l unsafe.Pointer)       { h.p.NotifyListNotifyAll(l) }
func (h stdHooks) NotifyListNotifyOne(l unsafe.Pointer)       { h.p.NotifyListNotifyOne(l) }
func (h stdHooks) SpinPoint(key any)                          { h.p.SpinPoint(key) }
func (h stdHooks) Now() (int64, int32, int64)                 { return h.p.Now() }
func (h stdHooks) Nano() int64                                { return h.p.Nano() }
func (h stdHooks) Sleep(d int64)                              { h.p.Sleep(time.Duration(d)) }
func (h stdHooks) Uint64() uint64                             { return h.p.Uint64() }
func (h stdHooks) Read(b []byte)                              { h.p.Read(b) }
func (h stdHooks) SetWaitGroupCount(f func(sema *uint32) int) { h.p.SetWaitGroupCount(f) }
func (h stdHooks) StopTimer(t unsafe.Pointer) (bool, bool)    { return h.p.StopTimer(t) }
func (h stdHooks) ResetTimer(t unsafe.Pointer, when, period int64) (bool, bool) {
	return h.p.ResetTimer(t, when, period)
}
func (h stdHooks) NewTimer(t unsafe.Pointer, when, period int64, f func(any, uintptr, int64), arg any, isChan bool) {
	h.p.NewTimer(t, when, period, f, arg, isChan)
}
