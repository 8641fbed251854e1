// Package simrthook is the seam between code that simrt's plain-Go mode
// rewrites (user packages and the standard library alike) and the runtime
// that simulates it. It exists only in the overlay that `simrt test` and
// `simrt overlay` hand to the go command, at $GOROOT/src/simrthook, so that
// the standard library can import it as well as user code; it is never
// written to disk under GOROOT.
//
// Every operation does exactly what plain Go does unless the calling
// goroutine is a task of an installed simulation (Active): code built with
// the overlay runs natively outside simulations.
//
// The package imports only unsafe and sync/atomic: the standard-library
// packages it is imported by (sync, internal/sync, time, context, ...) must
// not be among its dependencies. The facets of other owners (semaphores,
// timers, randomness) live in files of their own and keep their own
// installed tables; Active is the one identity check they all share.
package simrthook

import (
	"sync/atomic"
	"unsafe"
)

// getProfLabel returns the profiler label set of the calling goroutine. The
// runtime pushes it to runtime/pprof (a linkname the runtime keeps stable,
// go.dev/issue/67401); every task coroutine of a simulation carries its
// runtime's label set (deterministic/watchdog.go), so the pointer tells a
// task of the installed simulation from every other goroutine.
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

// installed is the simulation whose tasks are intercepted, or nil.
type installed struct {
	labels unsafe.Pointer
	chans  Chans
}

var current atomic.Pointer[installed]

// Install makes the goroutines whose profiler label set is labels (the task
// coroutines of one simulation) run the intercepted operations through
// chans. One simulation is installed at a time; Install panics if another
// is. The caller is the plain runtime, before its first task runs.
func Install(labels unsafe.Pointer, chans Chans) {
	if labels == nil || chans == nil {
		panic("simrthook: Install with nil labels or hooks")
	}
	if !current.CompareAndSwap(nil, &installed{labels: labels, chans: chans}) {
		panic("simrthook: a plain-Go simulation is already installed in this process (one at a time)")
	}
}

// Uninstall removes the simulation Install installed with labels.
func Uninstall(labels unsafe.Pointer) {
	if c := current.Load(); c != nil && c.labels == labels {
		current.CompareAndSwap(c, nil)
	}
}

// Active reports whether the calling goroutine is a task of the installed
// simulation: the one check every hook makes before leaving plain Go.
func Active() bool {
	c := current.Load()
	return c != nil && getProfLabel() == c.labels
}

// CurrentLabels returns the profiler label set of the calling goroutine (what
// Install wants, read from inside a task of the simulation).
func CurrentLabels() unsafe.Pointer { return getProfLabel() }

// chans returns the channel hooks if the caller is a task of the installed
// simulation, else nil.
func chans() Chans {
	c := current.Load()
	if c != nil && getProfLabel() == c.labels {
		return c.chans
	}
	return nil
}

// noescape hides p from escape analysis, as the runtime's own noescape
// does. The hooks keep no pointer they are given past their return and copy
// values into memory of their own before parking, so a value or case list
// on the caller's stack may stay there.
//
//go:nosplit
//go:nocheckptr
func noescape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return unsafe.Pointer(x ^ 0)
}
