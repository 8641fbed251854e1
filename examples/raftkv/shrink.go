//simrt:allow-file the shrinker runs whole simulations one after another and writes its files outside them

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/nemesis"
	"github.com/simrt/simrt/simtest"
)

// defaultShrinkRuns is the default budget of simulations for -shrink.
const defaultShrinkRuns = 400

// Settings of a shrink (simtest.ShrinkFailure does the steps).
const (
	smallSchedule   = 3 // faults: the stream step runs only at or below it
	freshVariants   = 6 // fresh seeds to try before a fault is kept
	freshSeedStride = 1_000_000_000
	finishRuns      = 2 // runs after simtest.ShrinkFailure: the final run and its check
	minShrinkRuns   = 2 + finishRuns
)

// shrunk is the result of shrinking one failing seed: its schedule, then
// its decision stream.
type shrunk struct {
	seed  uint64 // the seed that failed
	run   uint64 // the seed of the shrunk run: seed, or a fresh seed of it
	class string // the failure's kind, which every kept candidate shares
	first string // the original failure
	final string // the shrunk run's failure
	// from and to are the run's faults before and after, as one schedule:
	// the nemesis events and a power-loss event for each whole-cluster
	// crash (plan.schedule).
	from, to nemesis.Schedule
	// streamFrom is the recorded stream of the failing run; stream that
	// of the final run, every decision it made.
	streamFrom, stream *decision.Stream
	runs               int
	steps              []string // what each phase did, for the report
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

// freshSeed is the seed of the fresh'th fresh variant of a run of seed.
func freshSeed(seed uint64, fresh int) uint64 {
	return seed + uint64(fresh)*freshSeedStride
}

// shrinker is the state of one shrinkSeed: the current run the candidates
// are tried on (the seed and the decisions fed to it).
type shrinker struct {
	cfg    simConfig
	class  string
	seed   uint64
	replay decision.Decider
}

// run is the simtest.ShrinkRunFunc of a raftkv seed: the candidate's
// schedule on the current run (its seed and decisions), or on the
// candidate's stream, or on a fresh seed, which becomes the current run
// when it fails the same way.
func (k *shrinker) run(r simtest.Reproduction, fresh int, record bool) (string, *decision.Stream) {
	c := k.cfg
	s := r.Schedule
	c.Schedule, c.Seed, c.Replay = &s, k.seed, k.replay
	if r.Stream != nil {
		c.Replay = decision.DefaultAfter{Stream: r.Stream}
	}
	if fresh > 0 {
		c.Seed, c.Replay = freshSeed(k.cfg.Seed, fresh), nil
	}
	var rec *decision.Stream
	if record {
		rec = &decision.Stream{}
		c.Record = rec
	}
	why := failureClass(runSeed(c).Failure)
	if fresh > 0 && why == k.class {
		k.seed, k.replay = c.Seed, nil
	}
	return why, rec
}

// shrinkSeed shrinks cfg's failing seed within maxRuns simulations, with
// simtest.ShrinkFailure: first its faults (nemesis.ShrinkDeep over the
// events of plan.schedule: drop faults while the run still fails the
// same way, make the rest simpler, and try fresh seeds with the schedule
// forced before a fault is kept), then, while the schedule is small, its
// decision stream toward a shorter prefix and more default choices, then
// the faults once more with that stream, since a plainer run may need
// fewer of them. A candidate counts as failing when the run fails with
// the same class of failure, and a stream only when its run is no longer.
// It makes at most maxRuns runs, and at least minShrinkRuns (the failing
// run, the record of the shrunk run, the final run and its check).
func shrinkSeed(cfg simConfig, maxRuns int) (*shrunk, error) {
	if maxRuns <= 0 {
		maxRuns = defaultShrinkRuns
	}
	maxRuns = max(maxRuns, minShrinkRuns)
	cfg = cfg.withDefaults()
	r := &shrunk{seed: cfg.Seed}
	var p plan
	c := cfg
	c.drawn = &p
	orig := &decision.Stream{}
	c.Record = orig
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
	k := &shrinker{cfg: cfg, class: r.class, seed: cfg.Seed, replay: cfg.Replay}
	res, err := simtest.ShrinkFailure(simtest.Reproduction{Schedule: r.from, Stream: orig}, r.class,
		simtest.ShrinkOptions{MaxRuns: maxRuns - r.runs - finishRuns, Fresh: freshVariants, SmallSchedule: smallSchedule}, k.run)
	if err != nil {
		return nil, fmt.Errorf("seed %d: %v", k.seed, err)
	}
	r.runs += res.Runs
	r.steps = res.Steps
	if k.seed != cfg.Seed {
		r.steps = append(r.steps, fmt.Sprintf("the run with the fewer faults is a fresh seed, %d (seed %d's schedule forced)", k.seed, cfg.Seed))
	}
	r.streamFrom, r.to, r.run = orig, res.To.Schedule, k.seed
	return r, r.finish(cfg, res.To.Stream)
}

// finish makes the final run from the shrunk run's record, recorded again
// so that a plain replay of the file is that run, and checks it once more
// from the new record.
func (r *shrunk) finish(cfg simConfig, rec *decision.Stream) error {
	r.stream = &decision.Stream{}
	c := cfg
	c.Seed, c.Schedule, c.Replay, c.Record = r.run, &r.to, rec, r.stream
	o := runSeed(c)
	c = cfg
	c.Seed, c.Schedule, c.Replay = r.run, &r.to, r.stream
	again := runSeed(c)
	r.runs += 2
	if failureClass(o.Failure) != r.class || again.Failure != o.Failure {
		return fmt.Errorf("seed %d: the shrunk run does not fail the same way again (%q, then %q): the run is not deterministic", r.run, o.Failure, again.Failure)
	}
	r.final = o.Failure
	return nil
}

// save writes the shrunk schedule and stream next to each other in dir and
// returns their paths.
func (r *shrunk) save(dir string, bugs bugSet) (schedPath, streamPath string, err error) {
	base := filepath.Join(dir, fmt.Sprintf("raftkv-%s-seed%d", strings.ReplaceAll(bugs.String(), ",", "+"), r.run))
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
	for _, s := range r.steps {
		fmt.Fprintf(w, "  %s\n", s)
	}
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
