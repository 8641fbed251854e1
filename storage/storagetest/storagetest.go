// Package storagetest is the conformance suite every simrt.Storage passes:
// the 33 behaviours of the storage tests of commonware-runtime (the Rust
// crate simrt ports), adapted to exclusive
// opens and Close, the rules of exclusive opens themselves, and the rules
// on which the simulator's storage and the disk once disagreed (zero-byte
// writes, empty reads, name limits, inverted version ranges, handles of
// removed blobs, poisoned syncs, stray files, unsynced writes at Close).
//
// A storage runs it from its own tests, on a runtime under test (a
// suite.Runtime, which the runtime's own tests describe) and with a
// constructor of a fresh, empty storage, called in each case's root task:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, simulator, func(storagetest.T, simrt.Context) simrt.Storage { return memory.New() })
//	}
//
// Each case runs as a subtest, as the root task of a fresh runtime, on its
// own storage, and says on failure which rule it checks. A nil
// constructor tests the runtime's own storage (the root's context). Test
// is the error-returning form, for other runners.
//
// A few rules can only be checked by reaching under the interface: a sync
// that fails, a stray file in a partition. RunWithHooks runs them too, on
// implementations that can provide the Hooks they need.
package storagetest

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/suite"
)

// T is what a case reports through (see suite.T).
type T = suite.T

// NewStorage returns a fresh, empty storage for one case, built in the
// case's root task, whose context is ctx.
type NewStorage func(t T, ctx simrt.Context) simrt.Storage

// NewStorageWithHooks is a NewStorage for RunWithHooks, which also returns
// the storage's Hooks.
type NewStorageWithHooks func(t T, ctx simrt.Context) (simrt.Storage, Hooks)

// Run runs every case as a subtest, each as the root task of a fresh
// runtime from rt, on a fresh storage from newStorage (nil: the runtime's
// own).
func Run(t *testing.T, rt suite.Runtime, newStorage NewStorage) {
	t.Helper()
	suite.Run(t, rt, bindCases(rt, newStorage))
}

// Test runs the cases of Run and returns their failures as one error (nil
// if every case passed), for runners other than go test.
func Test(rt suite.Runtime, newStorage NewStorage) error {
	return suite.Test(rt, bindCases(rt, newStorage))
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
// possible, each on a fresh storage and its hooks from newStorage. The
// hooks of the first storage it makes say which cases are possible.
func RunWithHooks(t *testing.T, rt suite.Runtime, newStorage NewStorageWithHooks) {
	t.Helper()
	suite.Run(t, rt, bindHookCases(t, rt, newStorage))
}

// TestWithHooks is RunWithHooks's error-returning form.
func TestWithHooks(rt suite.Runtime, newStorage NewStorageWithHooks) error {
	return suite.Test(rt, bindHookCases(nil, rt, newStorage))
}

func bindCases(rt suite.Runtime, newStorage NewStorage) []suite.Case {
	var all []suite.Case
	for _, c := range cases {
		all = append(all, suite.Case{Name: c.name, Check: func(t T) {
			runCase(t, rt, func(t T, ctx simrt.Context) {
				var s simrt.Storage = ctx
				if newStorage != nil {
					s = newStorage(t, ctx)
				}
				c.check(t, s)
			})
		}})
	}
	return all
}

// bindHookCases binds the cases of Run and the hook cases the storage's
// hooks make possible, probed on a first storage (in a run of its own, on
// t if not nil).
func bindHookCases(t T, rt suite.Runtime, newStorage NewStorageWithHooks) []suite.Case {
	all := bindCases(rt, func(t T, ctx simrt.Context) simrt.Storage {
		s, _ := newStorage(t, ctx)
		return s
	})
	var probe Hooks
	probeRun := func(t T) {
		rt.Run(t, suite.Options{Timeout: suite.DefaultTimeout}, func(ctx simrt.Context) { _, probe = newStorage(t, ctx) })
	}
	if t != nil {
		probeRun(t)
	} else if err := suite.Test(rt, []suite.Case{{Name: "probe", Check: probeRun}}); err != nil {
		panic(err)
	}
	for _, c := range hookCases {
		if !c.needs(probe) {
			continue // this storage cannot provide the hook
		}
		all = append(all, suite.Case{Name: c.name, Check: func(t T) {
			runCase(t, rt, func(t T, ctx simrt.Context) {
				s, h := newStorage(t, ctx)
				c.check(t, s, h)
			})
		}})
	}
	return all
}

// runCase runs body as the root task of a fresh runtime from rt; body's T
// carries the task's context, for await.
func runCase(t T, rt suite.Runtime, body func(t T, ctx simrt.Context)) {
	rt.Run(t, suite.Options{Timeout: suite.DefaultTimeout}, func(ctx simrt.Context) {
		body(task{t, ctx}, ctx)
	})
}

// task is the T of a case running as a task: the test, and the context of
// the task (the case's root task; storage operations do not park, so a
// case runs in that one task).
type task struct {
	T
	ctx simrt.Context
}

// await waits for a handle in the task of the case t reports to.
func await[V any](t T, h *simrt.Handle[V]) (V, error) { return h.Await(t.(task).ctx) }

type hookCase struct {
	name  string
	needs func(Hooks) bool
	check func(t T, s simrt.Storage, h Hooks)
}

type testCase struct {
	name  string
	check func(t T, s simrt.Storage)
}
