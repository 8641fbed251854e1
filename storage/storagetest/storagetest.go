// Package storagetest is the conformance suite every simrt.Storage passes:
// the 33 behaviours of the storage tests of commonware-runtime (the Rust
// crate simrt ports), adapted to exclusive
// opens and Close, the rules of exclusive opens themselves, and the rules
// on which the simulator's storage and the disk once disagreed (zero-byte
// writes, empty reads, name limits, inverted version ranges, handles of
// removed blobs, poisoned syncs, stray files, unsynced writes at Close).
//
// Run it from a test of the implementation, with a constructor that returns
// a fresh, empty storage:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(*testing.T) simrt.Storage { return memory.New() })
//	}
//
// Each case runs as a subtest on its own storage, and says on failure which
// rule it checks. A storage that must be used from a task of its runtime
// (the simulator's) runs the suite through RunIn instead. The suite needs no runtime: it awaits StartSync handles on
// a plain goroutine.
//
// A few rules can only be checked by reaching under the interface: a sync
// that fails, a stray file in a partition. RunWithHooks runs them too, on
// implementations that can provide the Hooks they need.
package storagetest

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// Run runs every case as a subtest, each on a fresh storage from newStorage.
func Run(t *testing.T, newStorage func(t *testing.T) simrt.Storage) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, newStorage(t)) })
	}
}

// RunIn runs every case of Run as a subtest, each inside a runtime, for
// storages that must be used from a task (the simulator's): run builds a
// fresh runtime and storage, calls body with the storage from a task of
// that runtime, and returns once body has returned.
func RunIn(t *testing.T, run func(t *testing.T, body func(s simrt.Storage))) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, func(s simrt.Storage) { c.check(t, s) })
		})
	}
}

// Hooks reach under a storage's interface for the cases that need to. A nil
// field leaves out the cases that need it.
type Hooks struct {
	// FailSyncs makes every later sync of the storage fail (on) or succeed
	// (off): Sync, StartSync and the sync of a WriteSync write. Opens are
	// not made while it is on.
	FailSyncs func(on bool)
	// PlaceStray puts a regular file named name, holding a few bytes, in
	// partition (creating the partition if needed), where only a file of
	// the storage's own should be.
	PlaceStray func(partition, name string)
}

// RunWithHooks runs every case of Run, and then the cases the hooks make
// possible, each on a fresh storage and its hooks from newStorage.
func RunWithHooks(t *testing.T, newStorage func(t *testing.T) (simrt.Storage, Hooks)) {
	t.Helper()
	Run(t, func(t *testing.T) simrt.Storage {
		s, _ := newStorage(t)
		return s
	})
	_, probe := newStorage(t)
	for _, c := range hookCases {
		if !c.needs(probe) {
			continue // this storage cannot provide the hook
		}
		t.Run(c.name, func(t *testing.T) {
			s, h := newStorage(t)
			c.check(t, s, h)
		})
	}
}

type hookCase struct {
	name  string
	needs func(Hooks) bool
	check func(t *testing.T, s simrt.Storage, h Hooks)
}

type testCase struct {
	name  string
	check func(t *testing.T, s simrt.Storage)
}

// Await waits, on the calling goroutine, for a handle to complete. It is
// for tests that have no runtime, like this suite; inside a runtime use
// Handle.Await with the task's context.
func Await[T any](h *simrt.Handle[T]) (T, error) { return h.Await(goroutine{}) }

// goroutine is a minimal rtapi.Plumbing whose tasks are plain goroutines.
type goroutine struct{}

func (goroutine) CurrentTask() *core.Task {
	return core.NewTask(make(permit, 1))
}

func (goroutine) AfterFunc(time.Duration, func()) rtapi.Timer {
	panic("storagetest: no timers")
}

func (goroutine) SpawnTask(rtapi.Task) rtapi.Aborter {
	panic("storagetest: no tasks")
}

// permit is a one-slot semaphore with the park/unpark contract. Its tasks
// are never aborted and never under a Timeout, so it skips the task's
// BeforePark/AfterPark checks.
type permit chan struct{}

func (p permit) Park() { <-p }
func (p permit) Unpark() {
	select {
	case p <- struct{}{}:
	default:
	}
}
func (p permit) Yield() {}
