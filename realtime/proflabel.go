package realtime

import "unsafe"

// The runtime tells a task's goroutine by its profiler label set
// (interrupt.go, markGoroutine). runtime/pprof reads and sets a
// goroutine's label set through two functions the Go runtime provides it;
// package pprof offers no way to read the caller's set, or to put back a
// set saved earlier, so the runtime links to them. They are the only
// linknames of the module, and TestProfLabelLinknames fails with a clear
// message if a Go release changes what they do (a release that removes
// them fails the build at link time, naming them).

// getProfLabel returns the calling goroutine's label set (nil if it has
// none): a pointer that pprof.SetGoroutineLabels replaces, and that is
// copied to the goroutines the caller starts.
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

// setProfLabel makes labels, got from getProfLabel, the calling
// goroutine's label set again.
//
//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)
