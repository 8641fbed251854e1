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

// Shares of a shrink's budget. The schedule phase goes first with most of
// it; the stream phase runs only while the schedule is small (a plainer
// stream helps a small schedule shrink further; with many faults left the
// runs are better spent on them), and the faults get a last pass with the
// plainer stream.
const (
	scheduleShare   = 0.7 // of the budget, for the schedule phase
	streamShare     = 0.8 // of what is left, for the stream phase
	smallSchedule   = 3   // faults: the stream phase runs only at or below it
	freshVariants   = 6   // fresh seeds to try before a fault is kept
	freshSeedStride = 1_000_000_000
	finishRuns      = 3 // runs after the schedule phase: its record, the final run and its check
	minShrinkRuns   = 1 + finishRuns
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
	// streamFrom is the recorded stream of the run with the shrunk
	// schedule; stream that of the final run, every decision it made.
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

// shrinker is the state of one shrinkSeed: the budget, and the current
// run the candidates are tried on (the seed and the decisions fed to it).
type shrinker struct {
	cfg    simConfig
	r      *shrunk
	max    int
	seed   uint64
	replay decision.Decider
}

// fails runs c and reports whether it fails the same way, within budget.
func (k *shrinker) fails(c simConfig) bool {
	if k.r.runs >= k.max {
		return false
	}
	k.r.runs++
	return failureClass(runSeed(c).Failure) == k.r.class
}

// faults shrinks s within budget runs on the current run, with fresh
// variants (fresh seeds, the schedule forced) when fresh > 0; a fresh
// variant that fails becomes the current run.
func (k *shrinker) faults(s nemesis.Schedule, budget, fresh int) nemesis.Schedule {
	if budget <= 0 {
		return s
	}
	small, _ := nemesis.ShrinkDeep(s, func(s nemesis.Schedule, f int) bool {
		c := k.cfg
		c.Schedule, c.Seed, c.Replay = &s, k.seed, k.replay
		if f > 0 {
			c.Seed, c.Replay = freshSeed(k.cfg.Seed, f), nil
		}
		if !k.fails(c) {
			return false
		}
		if f > 0 {
			k.seed, k.replay = c.Seed, nil
		}
		return true
	}, nemesis.DeepOptions{MaxRuns: budget, Fresh: fresh})
	return small
}

// step records what a phase did.
func (k *shrinker) step(format string, args ...any) {
	k.r.steps = append(k.r.steps, fmt.Sprintf(format, args...))
}

// shrinkSeed shrinks cfg's failing seed within maxRuns simulations:
// first its faults (nemesis.ShrinkDeep over the events of plan.schedule:
// drop faults while the run still fails the same way, make the rest
// simpler, and try fresh seeds with the schedule forced before a fault is
// kept), then, while the schedule is small, its decision stream toward a
// shorter prefix and more default choices, then the faults once more with
// that stream, since a plainer run may need fewer of them. A candidate
// counts as failing when the run fails with the same class of failure.
// It makes at most maxRuns runs, and at least minShrinkRuns (the failing
// run, the record, the final run and its check).
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
	k := &shrinker{cfg: cfg, r: r, max: maxRuns, seed: cfg.Seed, replay: cfg.Replay}
	sched := k.schedulePhase(r.from)
	var err error
	if r.streamFrom, err = k.record(sched); err != nil {
		return nil, err
	}
	if len(sched.Events) <= smallSchedule {
		r.to = k.streamPhase(sched)
	} else {
		r.to = sched
		k.step("stream: not shrunk (more than %d faults left)", smallSchedule)
	}
	r.run = k.seed
	return r, r.finish(cfg, k.replay)
}

// schedulePhase shrinks the faults of from on scheduleShare of the
// budget; when more than smallSchedule are left, on the rest of it too
// (but for finishRuns), with more fresh seeds.
func (k *shrinker) schedulePhase(from nemesis.Schedule) nemesis.Schedule {
	r := k.r
	at := r.runs
	sched := k.faults(from, min(int(float64(k.max)*scheduleShare), k.max-finishRuns)-r.runs, freshVariants)
	k.step("faults: %d -> %d (%d runs)", len(from.Events), len(sched.Events), r.runs-at)
	if len(sched.Events) > smallSchedule {
		at = r.runs
		more := k.faults(sched, k.max-r.runs-finishRuns, 8*freshVariants)
		k.step("faults, the rest of the budget: %d -> %d (%d runs)", len(sched.Events), len(more.Events), r.runs-at)
		sched = more
	}
	if k.seed != k.cfg.Seed {
		k.step("the run with the fewer faults is a fresh seed, %d (seed %d's schedule forced)", k.seed, k.cfg.Seed)
	}
	return sched
}

// record returns the decision stream of the current run with sched.
func (k *shrinker) record(sched nemesis.Schedule) (*decision.Stream, error) {
	s := &decision.Stream{}
	c := k.cfg
	c.Seed, c.Schedule, c.Replay, c.Record = k.seed, &sched, k.replay, s
	k.r.runs++
	if failureClass(runSeed(c).Failure) != k.r.class {
		return nil, fmt.Errorf("seed %d with its shrunk schedule no longer fails: the run is not deterministic", k.seed)
	}
	return s, nil
}

// streamPhase shrinks the recorded stream of the run with sched toward a
// shorter prefix and default choices, on streamShare of what is left of
// the budget, then sched once more with that stream, which becomes the
// current run. It returns the schedule.
func (k *shrinker) streamPhase(sched nemesis.Schedule) nemesis.Schedule {
	r := k.r
	at := r.runs
	cand := shrinkStream(r.streamFrom, int(float64(k.max-r.runs-finishRuns+1)*streamShare), func(s *decision.Stream) bool {
		c := k.cfg
		c.Seed, c.Schedule, c.Replay = k.seed, &sched, decision.DefaultAfter{Stream: s}
		return k.fails(c)
	})
	k.step("stream: %s -> %s non-default decisions (%d runs)", commas(r.streamFrom.NonDefault()), commas(cand.NonDefault()), r.runs-at)
	k.replay = decision.DefaultAfter{Stream: cand}
	at = r.runs
	to := k.faults(sched, k.max-r.runs-finishRuns+1, 0)
	k.step("faults with that stream: %d -> %d (%d runs)", len(sched.Events), len(to.Events), r.runs-at)
	return to
}

// finish makes the final run, recorded whole so that a plain replay of
// the file is that run, and checks it once more from the record.
func (r *shrunk) finish(cfg simConfig, replay decision.Decider) error {
	r.stream = &decision.Stream{}
	c := cfg
	c.Seed, c.Schedule, c.Replay, c.Record = r.run, &r.to, replay, r.stream
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

// shrinkStream shrinks a recorded stream for fails within budget runs
// (simtest.ShrinkStream); with no budget left it returns orig.
func shrinkStream(orig *decision.Stream, budget int, fails func(*decision.Stream) bool) *decision.Stream {
	if budget <= 0 {
		return orig
	}
	return simtest.ShrinkStream(orig, budget, fails)
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
