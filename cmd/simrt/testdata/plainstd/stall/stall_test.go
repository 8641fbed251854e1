// Package stall deadlocks on purpose, for the stall report of plain Go's
// sync primitives (run by cmd/simrt's TestPlainStdStallReport).
package stall

import (
	"sync"
	"testing"
)

type guarded struct {
	mu sync.Mutex
	n  int
}

// TestDeadlock leaves a goroutine waiting for a Mutex nobody unlocks while
// the test waits on a WaitGroup that goroutine was to finish.
func TestDeadlock(t *testing.T) {
	var g guarded
	var wg sync.WaitGroup
	g.mu.Lock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		g.mu.Lock()
		g.n++
		g.mu.Unlock()
	}()
	wg.Wait()
}
