package simtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/internal/seeds"
)

// Explore runs root once per seed, each seed as a subtest named "seed=N"
// of t, several at a time (one simulation per goroutine; simulations share
// nothing). cfg.Seed is ignored: the seeds come from -simrt.seeds (or
// SIMRT_SEEDS), 0..99 by default and 0..9 with -short; -simrt.shard=i/n
// (SIMRT_SHARD) keeps every n-th of them, starting at position i, so that n
// machines split a sweep; -simrt.seed=N (SIMRT_SEED) runs only seed N, to
// replay a failure; -simrt.parallel sets how many run at once (GOMAXPROCS
// by default).
//
// root receives the seed's subtest: call t.Error and t.Fatal on it, not on
// the outer test, so that the failure is pinned to its seed. A failing
// seed is reported as by Run. Explore stops starting new seeds after the
// first failure (seeds already running finish) unless -simrt.keepgoing is
// set; it then names the lowest failing seed and its replay command.
//
// When the sweep ends, Explore logs a summary of the properties
// (simrt.Always, Sometimes, ...) and Buggify sites: every one the runs
// reached, with the number of seeds that reached it, made it true, failed
// it or fired it, and every call with a constant message found in the
// package's source (and in the packages of its module it imports) that no
// seed reached, and the faults the runs injected by kind ("faults
// injected: clog 12, partition 41"; see deterministic.Context.Faults). With
// -simrt.coverfile it also appends them to a file as JSON (CoverRecord).
// With -simrt.strict (SIMRT_STRICT) a missed goal (an Always
// or Reachable never reached, a Sometimes never true, a Buggify site that
// never fired) fails the test. cfg.Coverage, when set, receives the runs'
// records instead of a fresh Coverage.
//
// Call Explore from the test's goroutine. With -simrt.cryptorand or
// SeedCrypto, seeds run one at a time.
//
// While it runs several seeds, Explore sets the garbage collector's target
// to 400% (debug.SetGCPercent) unless the GOGC environment variable is set,
// and restores it afterwards: simulations are short-lived and allocate
// freely, and at the default 100% the collector takes most of a second core
// (measured on 2 cores: 1.26× the one-core rate at GOGC=100, 1.86× at 400).
func Explore(t *testing.T, cfg deterministic.Config, root Func) {
	t.Helper()
	st := mustSettings(t)
	seeds, total := exploreSeeds(st)
	workers := max(1, st.parallel)
	if st.crypto || st.shrink || st.inevitable {
		workers = 1 // shrinking reruns a failure for long: sweep no further meanwhile
	}
	workers = int(min(uint64(workers), max(total, 1)))
	if total > 1 && os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	if st.events == autoEvents {
		st.events = reportEvents
		if total > 1 {
			st.events = 0
		}
	}

	cov := cfg.Coverage
	if cov == nil {
		cov = &deterministic.Coverage{}
	}
	var (
		next   atomic.Uint64
		stop   atomic.Bool
		mu     sync.Mutex
		failed []uint64
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			// The worker's simulations run one after another, so they can
			// share idle task coroutines instead of each making its own.
			var pool deterministic.Coroutines
			defer pool.Close()
			for !stop.Load() || st.keepGoing {
				k := next.Add(1) - 1
				if k >= total {
					return
				}
				seed := seeds(k)
				c := cfg
				c.Seed = seed
				c.Coverage = cov
				if c.Coroutines == nil {
					c.Coroutines = &pool
				}
				ok := t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					runSeed(t, t.Name()[:strings.LastIndexByte(t.Name(), '/')], c, st, traceName(st.trace, seed, total), root)
				})
				if !ok {
					mu.Lock()
					failed = append(failed, seed)
					mu.Unlock()
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	reportCoverage(t, cov, st, len(failed) > 0)
	if st.coverFile != "" {
		if err := appendCoverFile(st.coverFile, t.Name(), cov); err != nil {
			t.Error(err)
		}
	}
	if len(failed) == 0 {
		return
	}
	slices.Sort(failed)
	ran := min(next.Load(), total)
	t.Errorf("simrt: %d of %d seeds run failed (of %d selected): %s\nfirst failing seed %d; replay: %s",
		len(failed), ran, total, seedList(failed), failed[0], replayCommand(t.Name(), failed[0]))
}

// exploreSeeds returns the selected seeds as a position-indexed function,
// and their number.
func exploreSeeds(st settings) (func(uint64) uint64, uint64) {
	if st.hasSeed {
		return func(uint64) uint64 { return st.seed }, 1
	}
	set := st.seeds
	if set == nil {
		set = seeds.Set{{Lo: 0, Hi: 99}}
		if testing.Short() {
			set = seeds.Set{{Lo: 0, Hi: 9}}
		}
	}
	sh := st.shard
	return func(k uint64) uint64 { return set.At(sh.I + k*sh.N) }, sh.Len(set.Len())
}

// traceName returns where to write the trace of seed: path itself for a
// single simulation, path with the seed before the extension otherwise.
func traceName(path string, seed, total uint64) string {
	if path == "" || total == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.seed%d%s", strings.TrimSuffix(path, ext), seed, ext)
}

// seedList renders at most 20 seeds.
func seedList(seeds []uint64) string {
	var b strings.Builder
	for i, s := range seeds {
		if i == 20 {
			fmt.Fprintf(&b, ", ... (%d more)", len(seeds)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(s, 10))
	}
	return b.String()
}
