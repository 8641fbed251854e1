package simtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/deterministic/pool"
)

// BranchOptions configures Branch and BranchSearch.
type BranchOptions struct {
	// Runs is the budget: how many runs the explorer may make. Zero means
	// 1000; Branch fails the test on a negative budget, and BranchSearch
	// panics.
	Runs int
	// Seed seeds the explorer's own choices: which stored prefix each run
	// replays and the fresh seed it continues with. The same options, the
	// same program: the same exploration.
	Seed uint64
	// KeepGoing spends the whole budget instead of stopping at the first
	// failing run.
	KeepGoing bool
	// Out is where Branch saves the first failing run's decision stream.
	// Empty means testdata/simrt/TEST-branch.stream in the package
	// directory.
	Out string
}

const defaultBranchRuns = 1000

// BranchSite is a goal the explorer reached: a Sometimes property true, a
// Reachable property reached or a Buggify site fired.
type BranchSite struct {
	// Hit is the goal and its stream position in the run that first
	// reached it.
	Hit decision.Hit
	// Run is that run's number, counting from 1.
	Run int
	// Depth is how many earlier goals lie on the prefix that run replayed:
	// 0 for a goal reached from scratch, 1 for one reached from the prefix
	// of a first goal, and so on.
	Depth int
}

// BranchReport is the outcome of a branching exploration.
type BranchReport struct {
	// Runs is how many runs the explorer made.
	Runs int
	// Failures is how many of them failed.
	Failures int
	// FirstFailure is the number (counting from 1) of the first failing
	// run, 0 if none failed.
	FirstFailure int
	// Sites are the goals reached, in the order they were first reached.
	Sites []BranchSite
	// Failing is the complete decision stream of the first failing run,
	// nil if none failed. Replaying it (Config.Replay) reruns that run
	// whatever the seed, since the stream makes every choice.
	Failing *decision.Stream
	// FailingSeed is the seed that run continued its prefix with.
	FailingSeed uint64
}

// prefix is a stored start of a run: the decisions up to a goal's first
// hit, and how many goals lie on it (that one included).
type prefix struct {
	decisions []decision.Decision
	depth     int
}

// brancher is the Decider of one explored run: it replays its prefix
// exactly (every decision of it has the recorded kind, because the run is
// the same up to there) and then leaves the choices to the run's fresh
// seed, and it collects the run's first hits.
type brancher struct {
	decision.Stream
	hits []decision.Hit
}

// FirstHit implements decision.HitObserver.
func (b *brancher) FirstHit(h decision.Hit) { b.hits = append(b.hits, h) }

// hitKey identifies a goal across runs.
type hitKey struct {
	kind decision.HitKind
	name string
	file string
	line int
}

// BranchSearch is the branching explorer without a test: it calls try up
// to opts.Runs times, each with cfg configured for one run (Seed, Replay
// and Record set; do not change them), and try runs the simulation and
// reports whether it failed. Branch is the version for tests.
//
// The explorer keeps a pool of prefixes, starting with the empty one. Each
// run replays a prefix drawn uniformly from the pool and continues with a
// fresh seed. When a run reaches a goal (a simrt.Sometimes true, a
// Reachable reached, a Buggify site fired) that no run reached before, at
// stream position k, the run's first k decisions join the pool: later runs
// start from right after the goal. A bug that needs rare events A then B
// costs about 1/P(A) + m/P(B) runs for a pool of m prefixes, where seeds
// alone cost 1/(P(A)·P(B)). Replaying a prefix is how the explorer forks a
// run at a point, which Go cannot do safely with a process.
func BranchSearch(cfg deterministic.Config, opts BranchOptions, try func(cfg deterministic.Config) (failed bool)) BranchReport {
	budget := opts.Runs
	if budget < 0 {
		panic(fmt.Sprintf("simtest.BranchSearch: BranchOptions.Runs %d: a budget of runs is not negative", budget))
	}
	if budget == 0 {
		budget = defaultBranchRuns
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6272616e6368)) // "branch"
	prefixes := []prefix{{}}
	seen := make(map[hitKey]bool)
	var rep BranchReport
	for rep.Runs < budget {
		rep.Runs++
		p := prefixes[rng.IntN(len(prefixes))]
		seed := rng.Uint64()
		dec := &brancher{Stream: decision.Stream{Decisions: p.decisions}}
		rec := &decision.Stream{}
		c := cfg
		c.Seed, c.Replay, c.Hooks.Record = seed, dec, rec
		failed := try(c)
		for _, h := range dec.hits {
			k := hitKey{h.Kind, h.Name, h.Site.File, h.Site.Line}
			if seen[k] {
				continue
			}
			seen[k] = true
			rep.Sites = append(rep.Sites, BranchSite{Hit: h, Run: rep.Runs, Depth: p.depth})
			if h.Position <= uint64(len(rec.Decisions)) {
				prefixes = append(prefixes, prefix{decisions: rec.Decisions[:h.Position:h.Position], depth: p.depth + 1})
			}
		}
		if !failed {
			continue
		}
		rep.Failures++
		if rep.FirstFailure == 0 {
			rep.FirstFailure, rep.Failing, rep.FailingSeed = rep.Runs, rec, seed
		}
		if !opts.KeepGoing {
			break
		}
	}
	return rep
}

// Branch runs root under the branching explorer (see BranchSearch), each
// run as a subtest named "run=N" of t, one at a time. cfg.Seed, Replay and
// Record are the explorer's. A failing run is reported as by Run, and
// Branch then fails t with the runs used, saves the failing run's decision
// stream (opts.Out) and prints the command that replays it:
//
//	go test -run '^TestX$' ./pkg -simrt.seed=N -simrt.replay=testdata/simrt/TestX-branch.stream
//
// With -simrt.seed set, Branch runs root once with that seed, as Run does
// (with -simrt.replay, with that stream's decisions). At the end Branch
// logs the runs used and every goal reached, with the run that first
// reached it, its stream position and its depth.
func Branch(t *testing.T, cfg deterministic.Config, root Func, opts BranchOptions) BranchReport {
	t.Helper()
	mustStart(t, "Branch", cfg, root == nil)
	if opts.Runs < 0 {
		t.Fatalf("simtest.Branch: BranchOptions.Runs %d: a budget of runs is not negative (0: the default, %d)", opts.Runs, defaultBranchRuns)
	}
	st := mustSettings(t)
	name := t.Name()
	if st.hasSeed {
		cfg.Seed = st.seed
		if st.events == autoEvents {
			st.events = reportEvents
		}
		runSeed(t, name, cfg, st, st.trace, root)
		return BranchReport{Runs: 1}
	}
	if st.events == autoEvents {
		st.events = 0
	}
	if cfg.Hooks.EventLog == 0 {
		cfg.Hooks.EventLog = st.events
	}
	var coros pool.Coroutines
	defer coros.Close()
	if cfg.Hooks.Coroutines == nil {
		cfg.Hooks.Coroutines = &coros
	}
	n := 0
	rep := BranchSearch(cfg, opts, func(c deterministic.Config) bool {
		n++
		return !t.Run(fmt.Sprintf("run=%d", n), func(t *testing.T) {
			if f := simulate(t, name, "see the branching explorer's report in the parent test", false, c, root, nil); f != nil {
				f.events = lastEvents(f.events, st.events)
				t.Errorf("%s", f.report(name))
			}
		})
	})
	t.Logf("simrt: branching explorer: %d runs, %d goals reached%s", rep.Runs, len(rep.Sites), rep.sitesText())
	if rep.Failing == nil {
		return rep
	}
	out := opts.Out
	if out == "" {
		out = filepath.Join("testdata", "simrt", branchFileName(name)+"-branch.stream")
	}
	saved := ""
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		saved = fmt.Sprintf(" (not saved: %v)", err)
	} else if err := recorded(rep.Failing, name).WriteFile(out); err != nil {
		saved = fmt.Sprintf(" (not saved: %v)", err)
	}
	t.Errorf("simrt: branching explorer: run %d of %d failed (%d failing); its decision stream (%d decisions) is in %s%s\nreplay: %s -simrt.replay=%s",
		rep.FirstFailure, rep.Runs, rep.Failures, len(rep.Failing.Decisions), out, saved,
		replayCommand(name, rep.FailingSeed), shellQuote(out))
	return rep
}

// sitesText lists the goals of the report, one a line.
func (r BranchReport) sitesText() string {
	var b strings.Builder
	for _, s := range r.Sites {
		fmt.Fprintf(&b, "\n  %s %q at %s:%d: run %d, decision %d, depth %d",
			s.Hit.Kind, s.Hit.Name, filepath.Base(s.Hit.Site.File), s.Hit.Site.Line, s.Run, s.Hit.Position, s.Depth)
	}
	return b.String()
}

// branchFileName makes a test name usable as a file name.
func branchFileName(test string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, test)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
