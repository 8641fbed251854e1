package main

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/simtest"
)

// Planted returns the planted programs of the bug-finding table (issue 16):
// bugs that need rare events in a row, which the corpus kernels do not.
func Planted() []Entry {
	return []Entry{{
		Name: "two-rare-buggify", Depth: 2, Bug: earlyAck(false), Fixed: earlyAck(true),
		Buggify: twoRareBuggify,
	}}
}

// twoRareBuggify switches both of earlyAck's sites on in every run and
// fires them on 0.1% of their calls, so each of its two events happens in
// about 1% of runs.
var twoRareBuggify = deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 0.001}

// earlyAck: a log appends ten records. Buggify "early_ack" (rare) makes an
// append acknowledge the record before its sync, which then takes ten
// steps; Buggify "crash_before_sync" (rare) crashes the log during those
// steps, and an acknowledged record is lost. Either event alone is
// harmless: the bug needs both, in that order. Fixed: the acknowledgement
// waits for the sync (the same sites are drawn, so the runs are alike).
func earlyAck(fixed bool) Kernel {
	return func(ctx simrt.Context) bool {
		acked, durable := 0, 0
		for i := 1; i <= 10; i++ {
			if !simrt.Buggify(ctx, "early_ack") {
				durable, acked = i, i
				ctx.Sleep(time.Millisecond)
				continue
			}
			if !fixed {
				acked = i
			}
			for range 10 {
				ctx.Sleep(time.Millisecond)
				if simrt.Buggify(ctx, "crash_before_sync") {
					return acked > durable
				}
			}
			durable, acked = i, i
		}
		return false
	}
}

// Strategy is one column of the table: a way to spend n runs on a kernel.
type Strategy struct {
	// Name labels the column.
	Name string
	// Measure runs k n times under cfg (Seed unset) and returns the first
	// detecting run (counting from 1, 0 if none) and how many detected.
	Measure func(cfg deterministic.Config, k Kernel, n int) (first, hits int)
}

// Strategies returns the table's columns: the schedulers over seeds
// 0..n-1, then fuzz and branch on the default configuration.
func Strategies() []Strategy {
	var out []Strategy
	for _, s := range Schedulers() {
		s := s
		out = append(out, Strategy{Name: s.Name, Measure: func(cfg deterministic.Config, k Kernel, n int) (int, int) {
			return seedSweep(merge(s.Config, cfg), k, n)
		}})
	}
	return append(out,
		Strategy{Name: "fuzz", Measure: FuzzRandom},
		Strategy{Name: "branch", Measure: BranchRuns})
}

// merge is sched with base's Buggify settings.
func merge(sched, base deterministic.Config) deterministic.Config {
	sched.Buggify = base.Buggify
	return sched
}

// seedSweep runs k under cfg with seeds 0..n-1.
func seedSweep(cfg deterministic.Config, k Kernel, n int) (first, hits int) {
	for seed := range n {
		cfg.Seed = uint64(seed)
		if Run(cfg, k) {
			hits++
			if first == 0 {
				first = seed + 1
			}
		}
	}
	return first, hits
}

// FuzzInputLen is how many bytes FuzzRandom gives each execution: the 8
// seed bytes of decision.Bytes and 248 decisions.
const FuzzInputLen = 256

// FuzzRandom is the fuzz strategy for a fixed budget of n executions: the
// decision stream fed by decision.Bytes (as simtest.Fuzz does), each
// execution with FuzzInputLen random bytes (execution i draws them from a
// PCG seeded with i). It is the fuzzer without coverage guidance, which
// only go test -fuzz has: the baseline of what the byte encoding gives.
func FuzzRandom(cfg deterministic.Config, k Kernel, n int) (first, hits int) {
	buf := make([]byte, FuzzInputLen)
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 0x66757a7a)) // "fuzz"
		for j := 0; j < len(buf); j += 8 {
			binary.LittleEndian.PutUint64(buf[j:], r.Uint64())
		}
		d := decision.NewBytes(buf)
		c := cfg
		c.Seed, c.Replay = d.Seed(), d
		if Run(c, k) {
			hits++
			if first == 0 {
				first = i + 1
			}
		}
	}
	return first, hits
}

// BranchRuns is the branching strategy: simtest.BranchSearch with a budget
// of n runs, spent whole.
func BranchRuns(cfg deterministic.Config, k Kernel, n int) (first, hits int) {
	rep := simtest.BranchSearch(cfg, simtest.BranchOptions{Runs: n, KeepGoing: true}, func(c deterministic.Config) bool {
		return Run(c, k)
	})
	return rep.FirstFailure, rep.Failures
}

// TwoRare measures, for the planted two-rare-buggify bug, the runs to its
// first detection by uniform seeds and by the branching explorer over the
// given number of trials: uniform trial i sweeps seeds from i·10^7 up to
// limit runs; branching trial i is BranchSearch with explorer seed i and a
// budget of limit runs. It returns the table of docs/FINDING.md.
func TwoRare(trials, limit int) string {
	e := Planted()[0]
	cfg := deterministic.Config{Buggify: e.Buggify}
	uniform := make([]int, trials)
	branch := make([]int, trials)
	for i := range trials {
		for r := range limit {
			c := cfg
			c.Seed = uint64(i)*10_000_000 + uint64(r)
			if Run(c, e.Bug) {
				uniform[i] = r + 1
				break
			}
		}
		rep := simtest.BranchSearch(cfg, simtest.BranchOptions{Runs: limit, Seed: uint64(i)}, func(c deterministic.Config) bool {
			return Run(c, e.Bug)
		})
		branch[i] = rep.FirstFailure
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: runs to first detection over %d trials (at most %d runs each; - = not found)\n\n", e.Name, trials, limit)
	b.WriteString("| strategy | mean | median | min | max | trials found | runs per trial |\n|---|---|---|---|---|---|---|\n")
	um, bm := row(&b, "uniform seeds", uniform), row(&b, "branching", branch)
	if um > 0 && bm > 0 {
		fmt.Fprintf(&b, "\nbranching needs %.1fx fewer runs (ratio of the means)\n", um/bm)
	}
	return b.String()
}

// row writes one strategy's row and returns its mean over the trials that
// found the bug.
func row(b *strings.Builder, name string, runs []int) float64 {
	var found []int
	for _, r := range runs {
		if r > 0 {
			found = append(found, r)
		}
	}
	if len(found) == 0 {
		fmt.Fprintf(b, "| %s | - | - | - | - | 0 of %d | %v |\n", name, len(runs), runs)
		return 0
	}
	sorted := append([]int(nil), found...)
	slices.Sort(sorted)
	sum := 0
	for _, r := range found {
		sum += r
	}
	mean := float64(sum) / float64(len(found))
	fmt.Fprintf(b, "| %s | %.0f | %d | %d | %d | %d of %d | %s |\n", name, mean, sorted[len(sorted)/2], sorted[0], sorted[len(sorted)-1],
		len(found), len(runs), strings.Trim(strings.ReplaceAll(fmt.Sprint(runs), " 0", " -"), "[]"))
	return mean
}
