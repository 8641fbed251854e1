//simrt:allow-file the command line runs outside the simulator: it reads and writes files

package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
)

// findOptions are the flags for finding and reproducing bugs: the
// scheduler, shrinking a failing seed, replaying a saved schedule and
// stream, and the bug-finding table.
type findOptions struct {
	strategy   string // "uniform" or "pct"
	pctDepth   int
	shrink     bool
	shrinkRuns int
	shrinkMore int    // -shrinkseeds
	schedule   string // -schedule FILE
	replay     string // -replay FILE
	table      bool
}

// findFlags defines the flags of findOptions on fs and returns the
// function that checks them once fs is parsed: it returns the options,
// or the one-line description of what is wrong.
func findFlags(fs *flag.FlagSet) func(given map[string]bool) (findOptions, string) {
	var o findOptions
	fs.StringVar(&o.strategy, "strategy", "uniform", "scheduler: uniform (random order, -yield) or pct (probabilistic concurrency testing)")
	fs.IntVar(&o.pctDepth, "pctdepth", 3, "with -strategy pct, the bug depth PCT targets (at least 1)")
	fs.BoolVar(&o.shrink, "shrink", false, "shrink a failure: its nemesis schedule, then its decision stream; save both to -out and print the command that replays them (with -seed: that seed; else the first failing seed of -seeds)")
	fs.IntVar(&o.shrinkRuns, "shrinkruns", defaultShrinkRuns, "with -shrink, the most simulations it may run (per seed shrunk)")
	fs.IntVar(&o.shrinkMore, "shrinkseeds", defaultShrinkSeeds, fmt.Sprintf("with -shrink, while the smallest result has more than %d faults, shrink up to this many more failing seeds (the next ones after it) and keep the smallest", smallSchedule))
	fs.StringVar(&o.schedule, "schedule", "", "with -seed, run this nemesis schedule file instead of the one the seed draws")
	fs.StringVar(&o.replay, "replay", "", "with -seed, replay this decision stream file (as -shrink saves it)")
	fs.BoolVar(&o.table, "table", false, "measure bug finding: every planted bug (or those of -bug) under every strategy, over -seeds (0..999 by default); print the table of docs/FINDING.md")
	return func(given map[string]bool) (findOptions, string) {
		switch {
		case o.strategy != "uniform" && o.strategy != "pct":
			return o, fmt.Sprintf("-strategy %s: uniform or pct", o.strategy)
		case o.pctDepth < 1:
			return o, fmt.Sprintf("-pctdepth %d: at least 1", o.pctDepth)
		case o.shrinkRuns < minShrinkRuns:
			return o, fmt.Sprintf("-shrinkruns %d: at least %d (the failing run, the shrunk run recorded, replayed and checked)", o.shrinkRuns, minShrinkRuns)
		case o.shrinkMore < 0:
			return o, fmt.Sprintf("-shrinkseeds %d: at least 0", o.shrinkMore)
		case (o.schedule != "" || o.replay != "") && !given["seed"]:
			return o, "-schedule and -replay replay one seed: give -seed N"
		case o.shrink && o.table:
			return o, "-shrink and -table: give one of them"
		case o.table && given["seed"]:
			return o, "-table sweeps seeds: give -seeds, not -seed"
		}
		return o, ""
	}
}

// apply sets the scheduler, schedule and stream of the options on cfg.
func (o findOptions) apply(cfg *simConfig) error {
	if o.strategy == "pct" {
		cfg.Scheduler, cfg.PCTDepth = deterministic.PCT, o.pctDepth
	}
	if o.schedule != "" {
		s, err := nemesis.ReadSchedule(o.schedule)
		if err != nil {
			return err
		}
		cfg.Schedule = &s
	}
	if o.replay != "" {
		s, err := decision.ReadStreamFile(o.replay)
		if err != nil {
			return fmt.Errorf("-replay: %s: %w", o.replay, err)
		}
		cfg.Replay = s
	}
	return nil
}

// defaultShrinkSeeds is the default of -shrinkseeds.
const defaultShrinkSeeds = 2

// shrinkSearch is how many seeds after a shrunk one -shrinkseeds searches
// for the next failing seed.
const shrinkSearch = 1000

// runShrink shrinks the failure of base's seed (or, with sweep, of the
// first failing seed of the sweep) and prints it; while the result has
// more than smallSchedule faults, it shrinks the next failing seeds too
// (up to -shrinkseeds more) and keeps the smallest. It returns the exit
// code.
func runShrink(o options, base simConfig, stdout, stderr io.Writer) int {
	if o.seed >= 0 {
		base.Seed = uint64(o.seed)
	} else {
		rep := sweep(sweepConfig{base: base, seeds: o.seeds, parallel: o.parallel, stopAtFirst: true})
		if len(rep.failures) == 0 {
			fmt.Fprintf(stdout, "raftkv: no seed of %d failed: nothing to shrink\n", rep.seeds)
			return exitFail
		}
		base.Seed = rep.failures[0].Seed
	}
	best, tried, err := shrinkSeeds(base, o.find.shrinkRuns, o.find.shrinkMore, o.parallel)
	if err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	schedPath, streamPath, err := best.save(o.out, base.Bugs)
	if err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	if len(tried) > 1 {
		fmt.Fprintf(stdout, "raftkv: shrank %d failing seeds: %s; kept seed %d\n", len(tried), strings.Join(tried, ", "), best.seed)
	}
	cmd := base
	cmd.Seed = best.run
	best.print(stdout, seedCommand(cmd), schedPath, streamPath)
	return exitOK
}

// shrinkSeeds shrinks base's failing seed and, while the smallest result
// has more than smallSchedule faults, up to more of the next failing
// seeds (each found by a sweep of the shrinkSearch seeds after the last
// one); not when base has a -schedule or -replay of its own, which belong
// to its seed. It returns the result with the fewest faults (the first of
// those), and one line per seed shrunk.
func shrinkSeeds(base simConfig, runs, more, parallel int) (*shrunk, []string, error) {
	best, err := shrinkSeed(base, runs)
	if err != nil {
		return nil, nil, err
	}
	tried := []string{fmt.Sprintf("%d (%d faults, %d runs)", best.seed, len(best.to.Events), best.runs)}
	last := base.Seed
	for range more {
		if len(best.to.Events) <= smallSchedule || base.Schedule != nil || base.Replay != nil || last > math.MaxUint64-shrinkSearch {
			break
		}
		rep := sweep(sweepConfig{base: base, seeds: []seedRange{{last + 1, last + shrinkSearch}}, parallel: parallel, stopAtFirst: true})
		if len(rep.failures) == 0 {
			tried = append(tried, fmt.Sprintf("none failing in %d..%d", last+1, last+shrinkSearch))
			break
		}
		c := base
		c.Seed = rep.failures[0].Seed
		last = c.Seed
		r, err := shrinkSeed(c, runs)
		if err != nil {
			return nil, nil, err
		}
		tried = append(tried, fmt.Sprintf("%d (%d faults, %d runs)", r.seed, len(r.to.Events), r.runs))
		if len(r.to.Events) < len(best.to.Events) {
			best = r
		}
	}
	return best, tried, nil
}

// seedCommand is the command that runs cfg's seed, from examples/.
func seedCommand(cfg simConfig) string {
	b := cfg.withDefaults()
	cmd := fmt.Sprintf("go run ./raftkv -seed %d", b.Seed)
	if len(b.Bugs) > 0 {
		cmd += " -bug " + b.Bugs.String()
	}
	if b.Nodes != 5 {
		cmd += fmt.Sprintf(" -nodes %d", b.Nodes)
	}
	if b.Clients != 3 {
		cmd += fmt.Sprintf(" -clients %d", b.Clients)
	}
	if b.Duration != 10*time.Second {
		cmd += " -duration " + b.Duration.String()
	}
	if b.NoSwarm {
		cmd += " -swarm=false"
	}
	switch p := b.YieldProbability; {
	case p < 0:
		cmd += " -yield 0"
	case p > 0 && p != deterministic.DefaultYieldProbability:
		cmd += fmt.Sprintf(" -yield %v", p)
	}
	if b.Scheduler == deterministic.PCT {
		cmd += fmt.Sprintf(" -strategy pct -pctdepth %d", b.PCTDepth)
	}
	return cmd
}
