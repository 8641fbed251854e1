// Package sweep runs one body per seed over a range of seeds: the seed
// sweep behind simtest.Explore, the simrt sweep command and the raftkv
// example, usable without a *testing.T.
//
// A sweep takes a seed list (Parse reads "0..999" or "1,5,10..19"), keeps
// one shard i/n of it (every n-th seed from position i, so that n machines
// split the work), and runs the body on Workers goroutines, each with its
// own pool of simulator coroutines that its runs share one after another.
// Results reach OnResult and failures reach OnFailure in seed order, so
// that what a sweep reports does not depend on the number of workers or on
// how the workers were scheduled; OnProgress hears of each seed as soon as
// it ends. Unless KeepGoing is set, the sweep stops at the lowest failing
// seed and reports nothing past it.
//
// The smallest use:
//
//	set, _ := sweep.Parse("0..99")
//	rep, err := sweep.Run(sweep.Config[struct{}]{Seeds: set, Workers: 4},
//		func(w *sweep.Worker, seed uint64) (struct{}, error) {
//			deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Coroutines: w.Coroutines}}).Start(root)
//			return struct{}{}, nil // a panic (a failed simulation) fails the seed
//		})
//
// The sweep runs on native goroutines and reads no clock: it starts
// simulations, it does not run inside one.
package sweep
