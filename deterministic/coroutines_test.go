package deterministic

import (
	"testing"

	"github.com/simrt/simrt"
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
	var pool Coroutines
	defer pool.Close()
	for seed := range uint64(5) {
		var plain, pooled string
		// NoYield: a spawned task that runs first may end before the next
		// spawn and lend it its coroutine, so fewer than 50 would be made.
		New(Config{Seed: seed, YieldProbability: NoYield}).Start(func(ctx *Context) { plain = spawnMany(ctx) })
		done := make(chan struct{})
		go func() {
			defer close(done)
			New(Config{Seed: seed, YieldProbability: NoYield, Coroutines: &pool}).Start(func(ctx *Context) { pooled = spawnMany(ctx) })
		}()
		<-done
		if plain != pooled {
			t.Fatalf("seed %d: audit %s without the pool, %s with it", seed, plain, pooled)
		}
		if len(pool.idle) < 50 {
			t.Fatalf("seed %d: pool holds %d coroutines after a run of 50 tasks", seed, len(pool.idle))
		}
	}
}

func TestCoroutinesInTwoRunsPanics(t *testing.T) {
	var pool Coroutines
	defer pool.Close()
	New(Config{Coroutines: &pool}).Start(func(ctx *Context) {
		mustPanic(t, "used by two running simulations", func() {
			New(Config{Coroutines: &pool}).Start(func(*Context) {})
		})
	})
}
