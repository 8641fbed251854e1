//go:build race || asan || msan

package realtime

import _ "unsafe" // for go:linkname

// In a race (or asan, msan) build a task's goroutine sleeps on a runtime
// semaphore (the race detector cannot follow park_gopark.go's commit,
// which runs without a race context). The permit protocol is the same; the token of an
// asleep task is asleepOnSema.

// sleeper is the semaphore the task's goroutine sleeps on: wake releases
// it once for each sleep it ends, so it never counts past one. It lives in
// the taskIO, with no allocation of its own.
type sleeper struct{ sema uint32 }

// asleepOnSema is the token of a task asleep on its semaphore.
const asleepOnSema = permitReady + 1

// sleep blocks until wake, unless the permit is no longer permitNone (a wake came
// first). It reports whether it slept.
func (x *taskIO) sleep() bool {
	if !x.permit.CompareAndSwap(permitNone, asleepOnSema) {
		return false
	}
	semacquire(&x.sema)
	x.permit.Load() // the waking Unpark's swap happens before the return, as the race detector sees it
	return true
}

// wake ends the sleep whose token the caller took out of the permit.
func (x *taskIO) wake(uintptr) { semrelease(&x.sema, false, 0) }

// The runtime's semaphore, as package sync uses it (sync.WaitGroup sleeps
// on it). The Go runtime keeps these two for outside users, with their
// signatures (go.dev/issue/67401).

//go:linkname semacquire sync.runtime_Semacquire
func semacquire(s *uint32)

//go:linkname semrelease sync.runtime_Semrelease
func semrelease(s *uint32, handoff bool, skipframes int)
