// Package pool lends idle simulator coroutines from one simulation to the
// next.
//
// A worker that runs simulation after simulation (a seed sweep) gives each
// run the same Coroutines through deterministic.Config.Hooks.Coroutines, and the
// tasks of every run after the first reuse parked goroutines instead of
// creating new ones. The pooled coroutines carry no simulation state, so
// runs stay independent and deterministic.
//
// The package is apart from the simulator so that a sweep engine (package
// sweep) can give each of its workers a pool without importing the
// simulator. What a pool holds is opaque here: the simulator puts its idle
// coroutines in (Put) and takes them back (Take).
//
// The smallest use:
//
//	var p pool.Coroutines
//	defer p.Close()
//	for seed := range uint64(100) {
//		deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Coroutines: &p}}).Start(root)
//	}
package pool

// Coroutines keeps idle task coroutines from one simulation to the next.
//
// One Coroutines serves one simulation at a time; using it in two running
// simulations at once panics. Close stops the coroutines it holds. The zero
// value is ready to use. Its methods are called from one goroutine at a
// time (the worker's).
type Coroutines struct {
	held  Held
	inUse bool
}

// Held is what a simulation leaves in a pool when it ends: its idle
// coroutines, and whatever else it keeps with them. Close stops them.
type Held interface {
	Close()
}

// Take hands the pool's content to a starting simulation (nil when the
// pool is empty) and marks the pool in use until Put. It panics if the
// pool is already in use.
func (p *Coroutines) Take() Held {
	if p.inUse {
		panic("pool.Coroutines: used by two running simulations at once (use one per worker)")
	}
	p.inUse = true
	h := p.held
	p.held = nil
	return h
}

// Put takes back what a finished simulation leaves (h may be nil) and
// marks the pool free.
func (p *Coroutines) Put(h Held) {
	p.inUse = false
	p.held = h
}

// Close stops every coroutine the pool holds. The pool can be used again
// (a pool left in use by a simulation that panicked stays in use: replace
// it). It is valid to call Close more than once.
func (p *Coroutines) Close() {
	if p.held != nil {
		p.held.Close()
		p.held = nil
	}
}
