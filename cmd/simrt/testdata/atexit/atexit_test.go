// Package atexit is a system under test for cmd/simrt's sweep tests: its
// tests pass every seed and then fail their test process after the seeds
// ran, as a leak check in TestMain, a check in the test after Explore, or
// a panic at exit does.
package atexit

import (
	"fmt"
	"os"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// leaked is set by TestMainCheck, for TestMain's check after the tests.
var leaked bool

func TestMain(m *testing.M) {
	code := m.Run()
	if leaked {
		fmt.Println("leakcheck: found unexpected goroutines: [worker]")
		code = 1
	}
	os.Exit(code)
}

func pass(t *testing.T, ctx *deterministic.Context) { ctx.Rand().IntN(2) }

// TestMainCheck passes every seed; TestMain then fails the process.
func TestMainCheck(t *testing.T) {
	simtest.Explore(t, deterministic.Config{}, pass)
	leaked = true
}

// TestAfterExplore passes every seed, then fails a check of its own.
func TestAfterExplore(t *testing.T) {
	simtest.Explore(t, deterministic.Config{}, pass)
	t.Error("leakcheck: 1 goroutine left after the sweep")
}

// TestPanicAtExit passes every seed and panics in its cleanup.
func TestPanicAtExit(t *testing.T) {
	t.Cleanup(func() { panic("boom at exit") })
	simtest.Explore(t, deterministic.Config{}, pass)
}
