package deterministic

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/pool"
)

func spawnMany(ctx *Context) string {
	hs := make([]*simrt.Handle[int], 50)
	for i := range hs {
		hs[i] = simrt.Spawn(ctx.Child("w"), func(ctx simrt.Context) int {
			simrt.Reschedule(ctx)
			return ctx.Rand().IntN(100)
		})
	}
	for _, h := range hs {
		h.Await(ctx)
	}
	return ctx.Auditor().State()
}

// TestCoroutinesSharedAcrossRuns: runs that share a pool (each on a fresh
// goroutine, as subtests are) behave exactly like runs that do not, and the
// later runs create no new coroutines.
func TestCoroutinesSharedAcrossRuns(t *testing.T) {
	var p pool.Coroutines
	defer p.Close()
	for seed := range uint64(5) {
		var plain, withPool string
		// NoYield: a spawned task that runs first may end before the next
		// spawn and lend it its coroutine, so fewer than 50 would be made.
		New(Config{Seed: seed, Scheduling: Scheduling{YieldProbability: NoYield}}).Start(func(ctx *Context) { plain = spawnMany(ctx) })
		done := make(chan struct{})
		go func() {
			defer close(done)
			New(Config{Seed: seed, Scheduling: Scheduling{YieldProbability: NoYield}, Hooks: Hooks{Coroutines: &p}}).Start(func(ctx *Context) { withPool = spawnMany(ctx) })
		}()
		<-done
		if plain != withPool {
			t.Fatalf("seed %d: audit %s without the pool, %s with it", seed, plain, withPool)
		}
		h, _ := p.Take().(*pooled)
		p.Put(h)
		if h == nil || len(h.idle) < 50 {
			t.Fatalf("seed %d: pool holds %v after a run of 50 tasks, want 50 coroutines or more", seed, h)
		}
	}
}

func TestCoroutinesInTwoRunsPanics(t *testing.T) {
	var p pool.Coroutines
	defer p.Close()
	New(Config{Hooks: Hooks{Coroutines: &p}}).Start(func(ctx *Context) {
		mustPanic(t, "used by two running simulations", func() {
			New(Config{Hooks: Hooks{Coroutines: &p}}).Start(func(*Context) {})
		})
	})
}
