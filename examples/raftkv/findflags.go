//simrt:allow-file the command line runs outside the simulator: it reads and writes files

package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/simrt/simrt/deterministic"
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
	fs.IntVar(&o.shrinkRuns, "shrinkruns", defaultShrinkRuns, "with -shrink, the most simulations it may run")
	fs.StringVar(&o.schedule, "schedule", "", "with -seed, run this nemesis schedule file instead of the one the seed draws")
	fs.StringVar(&o.replay, "replay", "", "with -seed, replay this decision stream file (as -shrink saves it)")
	fs.BoolVar(&o.table, "table", false, "measure bug finding: every planted bug (or those of -bug) under every strategy, over -seeds (0..999 by default); print the table of docs/FINDING.md")
	return func(given map[string]bool) (findOptions, string) {
		switch {
		case o.strategy != "uniform" && o.strategy != "pct":
			return o, fmt.Sprintf("-strategy %s: uniform or pct", o.strategy)
		case o.pctDepth < 1:
			return o, fmt.Sprintf("-pctdepth %d: at least 1", o.pctDepth)
		case o.shrinkRuns < 1:
			return o, fmt.Sprintf("-shrinkruns %d: at least 1", o.shrinkRuns)
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
		s, err := deterministic.ReadStreamFile(o.replay)
		if err != nil {
			return fmt.Errorf("-replay: %s: %w", o.replay, err)
		}
		cfg.Replay = s
	}
	return nil
}

// runShrink shrinks the failure of base's seed (or, with sweep, of the
// first failing seed of the sweep) and prints it. It returns the exit
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
	r, err := shrinkSeed(base, o.find.shrinkRuns)
	if err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	schedPath, streamPath, err := r.save(o.out, base.Bugs)
	if err != nil {
		fmt.Fprintln(stderr, "raftkv: -shrink:", err)
		return exitFail
	}
	r.print(stdout, seedCommand(base), schedPath, streamPath)
	return exitOK
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
