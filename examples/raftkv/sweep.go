//simrt:allow-file the sweep harness runs simulations on native goroutines and times them on the wall clock

package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/simrt/simrt/deterministic"
)

// seedRange is an inclusive range of seeds.
type seedRange struct{ lo, hi uint64 }

// parseSeeds parses "N", "A..B" and comma-separated lists of both.
func parseSeeds(s string) ([]seedRange, error) {
	var out []seedRange
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "..")
		a, err := strconv.ParseUint(lo, 10, 64)
		b := a
		if err == nil && isRange {
			b, err = strconv.ParseUint(hi, 10, 64)
		}
		if err != nil || b < a {
			return nil, fmt.Errorf("bad seeds %q: want N, A..B or a comma-separated list", part)
		}
		out = append(out, seedRange{a, b})
	}
	return out, nil
}

// seedAt returns the k-th seed of the ranges and their total count.
func seedAt(rs []seedRange, k uint64) (uint64, bool) {
	for _, r := range rs {
		if n := r.hi - r.lo + 1; k < n {
			return r.lo + k, true
		} else {
			k -= n
		}
	}
	return 0, false
}

func countSeeds(rs []seedRange) uint64 {
	var n uint64
	for _, r := range rs {
		n += r.hi - r.lo + 1
	}
	return n
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

// sweep runs the seeds on cfg.parallel goroutines, one simulation each at
// a time. Hunting a bug, it stops starting seeds above the lowest failure
// found so far, so the failure it reports is the lowest failing seed.
func sweep(cfg sweepConfig) *report {
	total := countSeeds(cfg.seeds)
	workers := max(1, min(cfg.parallel, int(min(total, 1<<20))))
	var bar *progressbar.ProgressBar
	if cfg.progress != nil {
		bar = progressbar.NewOptions64(int64(total),
			progressbar.OptionSetWriter(cfg.progress),
			progressbar.OptionSetDescription("raftkv seeds"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	rep := &report{cfg: cfg}
	var (
		next    atomic.Uint64
		limit   atomic.Uint64 // seeds at positions >= limit are not started
		mu      sync.Mutex
		wg      sync.WaitGroup
		started = time.Now()
	)
	limit.Store(total)
	for range workers {
		wg.Go(func() {
			pool := &deterministic.Coroutines{}
			defer pool.Close()
			for {
				k := next.Add(1) - 1
				if k >= limit.Load() {
					return
				}
				seed, _ := seedAt(cfg.seeds, k)
				c := cfg.base
				c.Seed = seed
				c.Coroutines = pool
				o := runSeed(c)
				mu.Lock()
				rep.seeds++
				rep.simTime += o.SimTime
				rep.ops += o.Ops
				rep.crashes += o.Crashes
				for k, n := range o.Faults {
					rep.faults[k] += n
				}
				if o.Checked {
					rep.checked++
					rep.checkOps += o.Ops
				}
				if strings.HasPrefix(o.Failure, violation) {
					rep.bad++
				}
				if bar != nil {
					bar.Describe("raftkv seeds" + rateText(rep.seeds, time.Since(started)))
				}
				if o.Failure != "" {
					rep.failures = append(rep.failures, o)
					if cfg.stopAtFirst && k < limit.Load() {
						limit.Store(k)
					}
				}
				mu.Unlock()
				if bar != nil {
					bar.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bar != nil {
		bar.Finish()
	}
	rep.wall = time.Since(started)
	slices.SortFunc(rep.failures, func(a, b outcome) int { return cmp.Compare(a.Seed, b.Seed) })
	if cfg.stopAtFirst && len(rep.failures) > 1 {
		rep.failures = rep.failures[:1]
	}
	return rep
}

// replayCommand is the command that replays one seed.
func (r *report) replayCommand(seed uint64) string {
	b := r.cfg.base.withDefaults()
	cmd := fmt.Sprintf("go run ./raftkv -seed %d", seed) // run from examples/, as the sweep was
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
		cmd += " -yield " + strconv.FormatFloat(p, 'g', -1, 64)
	}
	return cmd
}

// print writes the summary: what ran, what was checked, which faults were
// injected, how fast, and the failures.
func (r *report) print(w io.Writer) {
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
