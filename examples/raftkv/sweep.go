//simrt:allow-file the sweep harness runs simulations on native goroutines and times them on the wall clock

package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	simsweep "github.com/simrt/simrt/sweep"
)

// seedRange is an inclusive range of seeds.
type seedRange struct{ lo, hi uint64 }

// parseSeeds parses "N", "A..B" and comma-separated lists of both.
func parseSeeds(s string) ([]seedRange, error) {
	set, err := simsweep.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("bad seeds: %w", err)
	}
	out := make([]seedRange, len(set))
	for i, r := range set {
		out[i] = seedRange{r.Lo, r.Hi}
	}
	return out, nil
}

// sweepConfig describes a sweep.
type sweepConfig struct {
	base        simConfig
	seeds       []seedRange
	parallel    int
	stopAtFirst bool      // hunting a bug: stop at the lowest failing seed
	progress    io.Writer // progress bar; nil: none
}

// report is what a sweep found.
type report struct {
	cfg      sweepConfig
	err      error // the sweep could not start
	seeds    int
	simTime  time.Duration
	ops      int
	crashes  int
	faults   faultCounts // injected by the nemesis, by kind
	checked  int         // histories checked for linearizability
	checkOps int         // operations in those histories
	bad      int         // histories that are not linearizable
	wall     time.Duration
	failures []outcome // sorted by seed
}

// gcPercent is the garbage collector's target during a sweep: a run
// allocates a few megabytes and drops them all, so collecting less often
// saves CPU time (GOGC=1000 against the default 100: about 15% less, for
// about 60 MB of memory in all). The GOGC environment variable wins.
const gcPercent = 1000

// sweep runs the seeds on cfg.parallel goroutines, one simulation each at
// a time (package sweep's engine). Hunting a bug, it stops starting seeds
// above the lowest failure found so far, and reports the seeds up to the
// lowest failing one, so the report is the same for any -parallel.
func sweep(cfg sweepConfig) *report {
	set := make(simsweep.Set, len(cfg.seeds))
	for i, r := range cfg.seeds {
		set[i] = simsweep.Range{Lo: r.lo, Hi: r.hi}
	}
	var bar *progressbar.ProgressBar
	if cfg.progress != nil {
		bar = progressbar.NewOptions64(int64(set.Len()),
			progressbar.OptionSetWriter(cfg.progress),
			progressbar.OptionSetDescription("raftkv seeds"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	rep := &report{cfg: cfg}
	started := time.Now()
	_, rep.err = simsweep.Run(simsweep.Config[outcome]{
		Seeds:     set,
		Workers:   cfg.parallel,
		KeepGoing: !cfg.stopAtFirst,
		GCPercent: gcPercent,
		OnResult:  func(r simsweep.Result[outcome]) { rep.add(r.Value) },
		OnProgress: func(p simsweep.Progress) {
			if bar != nil {
				bar.Describe("raftkv seeds" + rateText(int(p.Done), time.Since(started)))
				bar.Add(1)
			}
		},
	}, func(w *simsweep.Worker, seed uint64) (outcome, error) {
		c := cfg.base
		c.Seed = seed
		c.Coroutines = w.Coroutines
		o := runSeed(c)
		if o.Failure != "" {
			return o, errors.New(o.Failure)
		}
		return o, nil
	})
	if bar != nil {
		bar.Finish()
	}
	rep.wall = time.Since(started)
	return rep
}

// add counts one seed's outcome; the sweep calls it in seed order.
func (r *report) add(o outcome) {
	r.seeds++
	r.simTime += o.SimTime
	r.ops += o.Ops
	r.crashes += o.Crashes
	for k, n := range o.Faults {
		r.faults[k] += n
	}
	if o.Checked {
		r.checked++
		r.checkOps += o.Ops
	}
	if strings.HasPrefix(o.Failure, violation) {
		r.bad++
	}
	if o.Failure != "" {
		r.failures = append(r.failures, o)
	}
}

// replayCommand is the command that replays one seed (run from examples/,
// as the sweep was), with the sweep's settings.
func (r *report) replayCommand(seed uint64) string {
	cfg := r.cfg.base
	cfg.Seed = seed
	return seedCommand(cfg)
}

// print writes the summary: what ran, what was checked, which faults were
// injected, how fast, and the failures.
func (r *report) print(w io.Writer) {
	if r.err != nil {
		fmt.Fprintf(w, "raftkv: %v\n", r.err)
		return
	}
	b := r.cfg.base.withDefaults()
	fmt.Fprintf(w, "raftkv: %d nodes, %d clients, up to %v of simulated time per run, bugs: %v\n", b.Nodes, b.Clients, b.Duration, r.cfg.base.Bugs)
	wall := r.wall.Seconds()
	fmt.Fprintf(w, "seeds run:       %d\n", r.seeds)
	fmt.Fprintf(w, "linearizable:    %s operations in %d histories checked, %d violations\n", commas(r.checkOps), r.checked, r.bad)
	if other := len(r.failures) - r.bad; other > 0 && !r.cfg.stopAtFirst {
		fmt.Fprintf(w, "other failures:  %d runs ended before their history could be checked (see below)\n", other)
	}
	fmt.Fprintf(w, "faults injected: %s\n", describeFaults(r.faults, r.crashes))
	fmt.Fprintf(w, "simulated time:  %v in %v real time (%.0fx)\n", r.simTime.Round(time.Millisecond), r.wall.Round(time.Millisecond), r.simTime.Seconds()/wall)
	fmt.Fprintf(w, "speed:           %.1f seeds/s on %d workers (%.1f seeds/s per worker)\n", float64(r.seeds)/wall, r.cfg.parallel, float64(r.seeds)/wall/float64(max(1, r.cfg.parallel)))
	if len(r.failures) == 0 {
		fmt.Fprintln(w, "failures:        none")
		return
	}
	if r.cfg.stopAtFirst {
		fmt.Fprintf(w, "first failing seed: %d\n", r.failures[0].Seed)
	} else {
		fmt.Fprintf(w, "failures:        %d\n", len(r.failures))
	}
	for _, f := range r.failures {
		fmt.Fprintf(w, "  seed %d: %s\n    replay: %s\n", f.Seed, f.Failure, r.replayCommand(f.Seed))
		if f.Visual != "" {
			fmt.Fprintf(w, "    visualisation: %s\n", f.Visual)
		}
	}
}

// describeFaults lists the injected faults by kind, with the whole-cluster
// crashes: "412 (isolate 70, partition 68, ...), 190 whole-cluster crashes".
func describeFaults(f faultCounts, crashes int) string {
	var b strings.Builder
	total := 0
	for _, n := range f {
		total += n
	}
	fmt.Fprintf(&b, "%s (", commas(total))
	for k, n := range f {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", kindOrder[k], commas(n))
	}
	fmt.Fprintf(&b, "), %s whole-cluster crashes", commas(crashes))
	return b.String()
}

// commas renders n with thousands separators: 208630 is "208,630".
func commas(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// rateText is the progress bar's rate: nothing before a second has passed,
// when one early seed would show an absurd rate, then ", N seeds/s".
func rateText(done int, elapsed time.Duration) string {
	if elapsed < time.Second || done == 0 {
		return ""
	}
	return fmt.Sprintf(", %.1f seeds/s", float64(done)/elapsed.Seconds())
}
