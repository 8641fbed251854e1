package realtime

import (
	"bytes"
	"context"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"unsafe"
)

// TestProfLabelLinknames checks what the runtime relies on from the two
// functions proflabel.go links to, so that a Go release that changes them
// fails here, loudly, rather than leaving Timeouts unable to cut blocked
// network I/O short.
func TestProfLabelLinknames(t *testing.T) {
	const hint = " (Go %s): realtime tells a task's goroutine by its profiler label set; " +
		"see realtime/proflabel.go and adapt markGoroutine to the new runtime"
	goroutineLabels := func() string {
		var b bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		return b.String()
	}
	const probe = `"simrt_linkname_probe":"on"`

	before := getProfLabel()
	defer setProfLabel(before)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("simrt_linkname_probe", "on")))
	set := getProfLabel()
	if set == nil || set == before {
		t.Fatalf("runtime_getProfLabel does not return the label set pprof.SetGoroutineLabels installed"+hint, goruntime.Version())
	}
	if getProfLabel() != set {
		t.Fatalf("runtime_getProfLabel returns a different pointer for the same label set"+hint, goruntime.Version())
	}
	if !strings.Contains(goroutineLabels(), probe) {
		t.Fatalf("the goroutine profile does not show labels set by pprof.SetGoroutineLabels"+hint, goruntime.Version())
	}

	// A goroutine started now inherits the very label set (task.start).
	inherited := make(chan unsafe.Pointer)
	go func() { inherited <- getProfLabel() }()
	if got := <-inherited; got != set {
		t.Fatalf("a new goroutine's label set is not its creator's"+hint, goruntime.Version())
	}

	// runtime_setProfLabel puts a saved set back (unmarkGoroutine).
	setProfLabel(before)
	if getProfLabel() != before {
		t.Fatalf("runtime_setProfLabel does not install the label set it is given"+hint, goruntime.Version())
	}
	if before == nil && strings.Contains(goroutineLabels(), probe) {
		t.Fatalf("after runtime_setProfLabel the goroutine profile still shows the old labels"+hint, goruntime.Version())
	}
	setProfLabel(set)
	if !strings.Contains(goroutineLabels(), probe) {
		t.Fatalf("runtime_setProfLabel does not make the profile show the set it installs"+hint, goruntime.Version())
	}
}
