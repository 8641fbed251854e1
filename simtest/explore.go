package simtest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/sweep"
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
// set; it then names the lowest failing seed and its replay command, and
// counts the seeds up to it, whatever -simrt.parallel is (the seeds run by
// package sweep's engine); seeds that were running beside it on other
// workers and failed too are said in the same line ("1 more seed ...
// failed too"), not counted.
//
// When the sweep ends, Explore logs a summary of the properties
// (simrt.Always, Sometimes, ...) and Buggify sites: every one the runs
// reached, with the number of seeds that reached it, made it true, failed
// it or fired it, and every call with a constant message found in the
// package's source (and in the packages of its module it imports) that no
// seed reached, and the faults the runs injected by kind ("faults
// injected: clog 12, partition 41"; see deterministic.Context.Faults). With
// -simrt.coverfile it also appends them to a file as JSON (coverfile.Record).
// With -simrt.strict (SIMRT_STRICT) a missed goal (an Always
// or Reachable never reached, a Sometimes never true, a Buggify site that
// never fired) fails the test. cfg.Coverage, when set, receives the runs'
// records instead of a fresh Coverage.
//
// Call Explore from the test's goroutine. With -simrt.cryptorand or
// SeedCrypto, seeds run one at a time.
//
// While it runs several seeds, Explore sets the garbage collector's target
// to 400% (sweep.Config.GCPercent: process-wide) unless the GOGC
// environment variable is set, and restores it afterwards: simulations are short-lived and allocate
// freely, and at the default 100% the collector takes most of a second core
// (measured on 2 cores: 1.26× the one-core rate at GOGC=100, 1.86× at 400).
func Explore(t *testing.T, cfg deterministic.Config, root Func) {
	t.Helper()
	mustStart(t, "Explore", cfg, root == nil)
	st := mustSettings(t)
	set, shard := exploreSeeds(st)
	total := shard.Len(set.Len())
	workers := max(1, st.parallel)
	if st.crypto || st.shrink || st.inevitable {
		workers = 1 // shrinking reruns a failure for long: sweep no further meanwhile
	}
	gc := 0
	if total > 1 {
		gc = 400
	}
	if st.events == autoEvents {
		st.events = reportEvents
		if total > 1 {
			st.events = 0
		}
	}

	cov := cfg.Hooks.Coverage
	if cov == nil {
		cov = &deterministic.Coverage{}
	}
	rep, allFailed := sweepSubtests(t, st, workers, gc, func(t *testing.T, w *sweep.Worker, seed uint64) {
		c := cfg
		c.Seed = seed
		c.Hooks.Coverage = cov
		if c.Hooks.Coroutines == nil {
			// The worker's simulations run one after another, so they can
			// share idle task coroutines instead of each making its own.
			c.Hooks.Coroutines = w.Coroutines
		}
		runSeed(t, t.Name()[:strings.LastIndexByte(t.Name(), '/')], c, st, traceName(st.trace, seed, total), root)
	})
	if rep == nil {
		return
	}
	source := packageSites()
	reportCoverage(t, cov, source, st, len(rep.Failures) > 0)
	if st.coverFile != "" {
		if err := appendCoverFile(st.coverFile, t.Name(), cov, unreachedSites(cov, source)); err != nil {
			t.Error(err)
		}
	}
	if len(rep.Failures) == 0 {
		return
	}
	failed := failingSeeds(rep)
	t.Errorf("simrt: %d of %d seeds run failed (of %d selected): %s%s\nfirst failing seed %d; replay: %s%s",
		len(failed), rep.Ran, rep.Selected, seedList(failed), uncounted(allFailed-len(failed)),
		failed[0], replayCommand(t.Name(), failed[0]), streamFlags(st))
}

// uncounted says that n more seeds failed beyond the report, or nothing:
// without -simrt.keepgoing the report ends at the lowest failing seed,
// whatever the workers, but the seeds that were running beside it on other
// workers finish, and their subtests fail too.
func uncounted(n int) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "; 1 more seed, running beside them, failed too (not counted: the report ends at the lowest failing seed; -simrt.keepgoing counts every seed)"
	}
	return fmt.Sprintf("; %d more seeds, running beside them, failed too (not counted: the report ends at the lowest failing seed; -simrt.keepgoing counts every seed)", n)
}

// errSeedFailed is the failure of a seed whose subtest failed; the
// subtest has reported why.
var errSeedFailed = errors.New("simtest: the seed's subtest failed")

// sweepSubtests runs each seed the settings select as a subtest "seed=N"
// of t, on workers goroutines (see package sweep), and returns the report,
// or nil after failing t when the selection cannot be swept or when
// -simrt.record asks for the stream of one seed among several. Without
// -simrt.keepgoing no seed starts after the first failure, and the report
// ends at the lowest failing seed. It also returns how many subtests
// failed, in the report or not (a seed running beside the lowest failing
// one): t.Run's answer, so that a seed that failed by t.FailNow (which
// leaves run by runtime.Goexit) or in a cleanup counts as its "--- FAIL"
// line does.
func sweepSubtests(t *testing.T, st settings, workers, gc int, run func(t *testing.T, w *sweep.Worker, seed uint64)) (*sweep.Report[struct{}], int) {
	t.Helper()
	set, shard := exploreSeeds(st)
	if n := shard.Len(set.Len()); st.record != "" && n > 1 {
		t.Errorf("simtest: -simrt.record=%s writes the stream of one seed, and %d seeds are selected (%v); select one with -simrt.seed=N", st.record, n, set)
		return nil, 0
	}
	var failed atomic.Int64
	cfg := sweep.Config[struct{}]{Seeds: set, Shard: shard, Workers: workers, KeepGoing: st.keepGoing, GCPercent: gc}
	rep, err := sweep.Run(cfg, func(w *sweep.Worker, seed uint64) (struct{}, error) {
		if !t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) { run(t, w, seed) }) {
			failed.Add(1)
			return struct{}{}, errSeedFailed
		}
		return struct{}{}, nil
	})
	if err != nil {
		t.Errorf("simtest: %v", err)
		return nil, 0
	}
	return rep, int(failed.Load())
}

// failingSeeds returns the seeds of the report's failures, in order.
func failingSeeds(rep *sweep.Report[struct{}]) []uint64 {
	failed := make([]uint64, len(rep.Failures))
	for i, f := range rep.Failures {
		failed[i] = f.Seed
	}
	return failed
}

// exploreSeeds returns the seeds the settings select: one seed with
// -simrt.seed, else the shard of -simrt.seeds or of the default.
func exploreSeeds(st settings) (sweep.Set, sweep.Shard) {
	if st.hasSeed {
		return sweep.Set{{Lo: st.seed, Hi: st.seed}}, sweep.Shard{}
	}
	set := st.seeds
	if set == nil {
		set = sweep.Set{{Lo: 0, Hi: 99}}
		if testing.Short() {
			set = sweep.Set{{Lo: 0, Hi: 9}}
		}
	}
	return set, st.shard
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
