//simrt:allow-file the shrinker runs whole simulations one after another and writes its files outside them

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/nemesis"
	"github.com/simrt/simrt/simtest"
)

// defaultShrinkRuns is the default budget of simulations for -shrink.
const defaultShrinkRuns = 400

// shrunk is the result of shrinking one failing seed: its schedule, then
// its decision stream.
type shrunk struct {
	seed  uint64
	class string // the failure's kind, which every kept candidate shares
	first string // the original failure
	final string // the shrunk run's failure
	// from and to are the run's faults before and after, as one schedule:
	// the nemesis events and a power-loss event for each whole-cluster
	// crash (plan.schedule).
	from, to nemesis.Schedule
	// streamFrom is the recorded stream of the run with the shrunk
	// schedule; stream that of the final run, every decision it made.
	streamFrom, stream *deterministic.Stream
	runs               int
}

// crashes counts the whole-cluster crashes (power-loss events) of s.
func crashes(s nemesis.Schedule) int {
	n := 0
	for _, e := range s.Events {
		if e.Kind == nemesis.PowerLoss {
			n++
		}
	}
	return n
}

// failureClass returns the kind of a failure, which a shrunk run must
// keep: "linearizability violation" (whatever the keys and operations),
// "election safety violation", "no progress", "panic", or the text up to
// the first colon.
func failureClass(failure string) string {
	for _, c := range []string{violation, electionSafety, "no progress", "panic"} {
		if strings.HasPrefix(failure, c) {
			return c
		}
	}
	class, _, _ := strings.Cut(failure, ":")
	return class
}

// shrinkSeed shrinks cfg's failing seed within maxRuns simulations:
// first its faults (delta debugging over the events of plan.schedule:
// drop faults while the run still fails the same way), then, with the
// smaller schedule, its decision stream toward a shorter prefix and more
// default choices, then the faults once more with that stream, since a
// plainer run may need fewer of them. A candidate counts as failing when
// the run fails with the same class of failure.
func shrinkSeed(cfg simConfig, maxRuns int) (*shrunk, error) {
	if maxRuns <= 0 {
		maxRuns = defaultShrinkRuns
	}
	cfg = cfg.withDefaults()
	r := &shrunk{seed: cfg.Seed}
	var p plan
	c := cfg
	c.drawn = &p
	o := runSeed(c)
	r.runs++
	if o.Failure == "" {
		return nil, fmt.Errorf("seed %d (bugs: %v) passes: there is no failure to shrink", cfg.Seed, cfg.Bugs)
	}
	r.first, r.class = o.Failure, failureClass(o.Failure)
	r.from = p.schedule(nodeNames(cfg.Nodes))
	if cfg.Schedule != nil {
		r.from = *cfg.Schedule
	}
	fails := func(c simConfig) bool {
		if r.runs >= maxRuns {
			return false
		}
		r.runs++
		return failureClass(runSeed(c).Failure) == r.class
	}
	shrinkFaults := func(s nemesis.Schedule, replay deterministic.Decider, budget int) nemesis.Schedule {
		small, _ := nemesis.ShrinkWithin(s, func(s nemesis.Schedule) bool {
			c := cfg
			c.Schedule, c.Replay = &s, replay
			return fails(c)
		}, budget)
		return small
	}
	sched := shrinkFaults(r.from, cfg.Replay, (maxRuns-r.runs)/2)

	// The decision stream of the run with the smaller schedule.
	r.streamFrom = &deterministic.Stream{}
	c = cfg
	c.Schedule, c.Record = &sched, r.streamFrom
	r.runs++
	if failureClass(runSeed(c).Failure) != r.class {
		return nil, fmt.Errorf("seed %d with its shrunk schedule no longer fails: the run is not deterministic", cfg.Seed)
	}
	limit := maxRuns
	maxRuns = r.runs + (maxRuns-r.runs)*4/5 // leave a fifth for the second pass
	cand := shrinkStream(r.streamFrom, maxRuns-r.runs, func(s *deterministic.Stream) bool {
		c := cfg
		c.Schedule, c.Replay = &sched, deterministic.DefaultAfter{Stream: s}
		return fails(c)
	})
	maxRuns = limit
	replay := deterministic.DefaultAfter{Stream: cand}
	r.to = shrinkFaults(sched, replay, maxRuns-r.runs)

	// The final run, recorded whole so that a plain replay of the file is
	// that run, and checked once more from the record.
	r.stream = &deterministic.Stream{}
	c = cfg
	c.Schedule, c.Replay, c.Record = &r.to, replay, r.stream
	o = runSeed(c)
	c = cfg
	c.Schedule, c.Replay = &r.to, r.stream
	again := runSeed(c)
	r.runs += 2
	if failureClass(o.Failure) != r.class || again.Failure != o.Failure {
		return nil, fmt.Errorf("seed %d: the shrunk run does not fail the same way again (%q, then %q): the run is not deterministic", cfg.Seed, o.Failure, again.Failure)
	}
	r.final = o.Failure
	return r, nil
}

// shrinkStream shrinks a recorded stream for fails within budget runs
// (simtest.ShrinkStream); with no budget left it returns orig.
func shrinkStream(orig *deterministic.Stream, budget int, fails func(*deterministic.Stream) bool) *deterministic.Stream {
	if budget <= 0 {
		return orig
	}
	return simtest.ShrinkStream(orig, budget, fails)
}

// save writes the shrunk schedule and stream next to each other in dir and
// returns their paths.
func (r *shrunk) save(dir string, bugs bugSet) (schedPath, streamPath string, err error) {
	base := filepath.Join(dir, fmt.Sprintf("raftkv-%s-seed%d", strings.ReplaceAll(bugs.String(), ",", "+"), r.seed))
	schedPath, streamPath = base+".schedule", base+".stream"
	if err := r.to.WriteFile(schedPath); err != nil {
		return "", "", err
	}
	if err := r.stream.WriteFile(streamPath); err != nil {
		return "", "", err
	}
	return schedPath, streamPath, nil
}

// print writes what the shrink did: "from N faults to M" with the events
// left, the decision stream's size, where it is saved and the command that
// replays it.
func (r *shrunk) print(w io.Writer, cmd, schedPath, streamPath string) {
	fmt.Fprintf(w, "raftkv: seed %d fails: %s\n", r.seed, firstLine(r.first))
	fmt.Fprintf(w, "%s", nemesis.Summary(r.from, r.to))
	fmt.Fprintf(w, "(whole-cluster crashes, the power-loss events: %d -> %d; %d runs)\n", crashes(r.from), crashes(r.to), r.runs)
	fmt.Fprintf(w, "decision stream: from %s decisions (%s not the default) to %s (%s not the default)\n",
		commas(len(r.streamFrom.Decisions)), commas(r.streamFrom.NonDefault()), commas(len(r.stream.Decisions)), commas(r.stream.NonDefault()))
	fmt.Fprintf(w, "shrunk run fails: %s\n", firstLine(r.final))
	fmt.Fprintf(w, "saved: %s\n       %s\n", schedPath, streamPath)
	fmt.Fprintf(w, "replay: %s -schedule %s -replay %s\n", cmd, schedPath, streamPath)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
