//simrt:allow-file the table runs simulations on native goroutines, outside the simulator

package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/simtest"
)

// strategy is one column of the bug-finding table: how the runs of a
// budget are chosen.
type strategy struct {
	name string
	desc string
	// runs runs the budget's n runs of cfg and returns the number
	// (counting from 1) of the first that failed, 0 if none did, and how
	// many failed.
	runs func(cfg simConfig, seeds []uint64, parallel int) (first, hits int)
}

// strategies are the table's columns, in order.
var strategies = []strategy{
	{"swarm", "uniform scheduler (yield 0.05), nemesis with swarm testing: the default", seedRuns(func(c *simConfig) {})},
	{"no swarm", "uniform scheduler, every fault kind in every seed (-swarm=false)", seedRuns(func(c *simConfig) { c.NoSwarm = true })},
	{"pct d=3", "PCT scheduler, depth 3, with swarm (-strategy pct)", seedRuns(func(c *simConfig) { c.Scheduler, c.PCTDepth = deterministic.PCT, 3 })},
	{"branch", "simtest.BranchSearch (explorer seed 0), swarm, budget spent whole", branchRuns},
}

// seedRuns is a strategy that runs each seed with cfg changed by set.
func seedRuns(set func(c *simConfig)) func(cfg simConfig, seeds []uint64, parallel int) (int, int) {
	return func(cfg simConfig, seeds []uint64, parallel int) (int, int) {
		set(&cfg)
		failed := make([]bool, len(seeds))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range max(1, parallel) {
			wg.Go(func() {
				coros := &pool.Coroutines{}
				defer coros.Close()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(seeds) {
						return
					}
					c := cfg
					c.Seed, c.Coroutines = seeds[i], coros
					failed[i] = runSeed(c).Failure != ""
				}
			})
		}
		wg.Wait()
		return firstAndHits(failed)
	}
}

// branchRuns is the branching strategy: the explorer with a budget of one
// run per seed, spent whole. raftkv has no Buggify site and one goal, with
// leases only ("a leader steps down while its lease holds", dropLease);
// without it the pool of prefixes stays empty and the explorer draws
// fresh seeds.
func branchRuns(cfg simConfig, seeds []uint64, _ int) (int, int) {
	rep := simtest.BranchSearch(deterministic.Config{}, simtest.BranchOptions{Runs: len(seeds), KeepGoing: true}, func(d deterministic.Config) bool {
		c := cfg
		c.Seed, c.Replay, c.Record = d.Seed, d.Replay, d.Hooks.Record
		return runSeed(c).Failure != ""
	})
	return rep.FirstFailure, rep.Failures
}

func firstAndHits(failed []bool) (first, hits int) {
	for i, f := range failed {
		if f {
			if first == 0 {
				first = i + 1
			}
			hits++
		}
	}
	return first, hits
}

// runTable prints the bug-finding table: for each planted bug (those of
// -bug, or all) and each strategy, the runs to the first detection and
// how many of the runs detect it, over the seeds of -seeds.
func runTable(o options, base simConfig, w io.Writer) int {
	var seeds []uint64
	for _, r := range o.seeds {
		for s := r.lo; ; s++ {
			seeds = append(seeds, s)
			if s == r.hi {
				break
			}
		}
	}
	list := o.bugs
	if len(list) == 0 {
		for _, b := range bugs {
			list = append(list, b.name)
		}
	}
	fmt.Fprintf(w, "Runs per cell: %d (seeds %s). Cell: runs to first detection / runs detecting (- = never).\n\n", len(seeds), seedsText(o.seeds))
	fmt.Fprintf(w, "| bug |")
	for _, s := range strategies {
		fmt.Fprintf(w, " %s |", s.name)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(strategies)))
	for _, b := range list {
		fmt.Fprintf(w, "| %s |", b)
		for _, s := range strategies {
			c := base
			c.Bugs = bugSet{b}
			first, hits := s.runs(c, seeds, o.parallel)
			fmt.Fprintf(w, " %s |", cell(first, hits))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, s := range strategies {
		fmt.Fprintf(w, "- %s: %s\n", s.name, s.desc)
	}
	return exitOK
}

// cell renders one cell of the table.
func cell(first, hits int) string {
	if first == 0 {
		return "- / 0"
	}
	return fmt.Sprintf("%d / %d", first, hits)
}

// seedsText renders seed ranges as -seeds spells them.
func seedsText(rs []seedRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d..%d", r.lo, r.hi)
		if r.lo == r.hi {
			parts[i] = fmt.Sprint(r.lo)
		}
	}
	return strings.Join(parts, ",")
}
