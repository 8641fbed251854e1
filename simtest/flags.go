package simtest

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/simrt/simrt/sweep"
)

// setting is one command-line flag of the package, readable from the
// environment as well. It records whether the flag was given, so that a
// flag wins over its environment variable.
type setting struct {
	name   string // flag name without the "simrt." prefix
	usage  string
	isBool bool
	value  string
	set    bool
}

// String implements flag.Value.
func (s *setting) String() string {
	if s == nil {
		return ""
	}
	return s.value
}

// Set implements flag.Value.
func (s *setting) Set(v string) error {
	if s.isBool {
		if _, err := strconv.ParseBool(v); err != nil {
			return err
		}
	}
	s.value, s.set = v, true
	return nil
}

// IsBoolFlag lets boolean settings be given as a bare -simrt.NAME.
func (s *setting) IsBoolFlag() bool { return s.isBool }

// env returns the name of the setting's environment variable.
func (s *setting) env() string {
	return "SIMRT_" + strings.ToUpper(s.name)
}

// The package's flags. They are the only package-level mutable state of
// simtest (and of simrt): the flag package writes them once, while the test
// binary parses its command line, before any test runs; afterwards they are
// only read.
var (
	flagSeeds = &setting{name: "seeds",
		usage: "seeds for Explore: `list` of N and A..B (inclusive), e.g. 0..999 or 1,5,10..19 (default 0..99, 0..9 with -short)"}
	flagSeed = &setting{name: "seed",
		usage: "replay one `seed`: Run and Explore run only this seed"}
	flagShard = &setting{name: "shard",
		usage: "run shard `i/n` of the seeds: every n-th seed starting at position i"}
	flagKeepGoing = &setting{name: "keepgoing", isBool: true,
		usage: "report every failing seed instead of stopping at the first"}
	flagTrace = &setting{name: "trace",
		usage: "write a Chrome/Perfetto trace-event `file` of each simulation (the seed is added to the name when Explore runs several)"}
	flagCheck = &setting{name: "checkdeterminism", isBool: true,
		usage: "run every simulation twice and compare the event streams"}
	flagParallel = &setting{name: "parallel",
		usage: "`n` simulations at once in Explore (default GOMAXPROCS)"}
	flagEvents = &setting{name: "events",
		usage: "`n` last events in a failure report; 0 turns the event log off (default 20 for one seed, 0 when Explore runs several)"}
	flagCrypto = &setting{name: "cryptorand", isBool: true,
		usage: "seed crypto/... from each simulation's seed (testing/cryptotest); seeds run one at a time"}

	flagCoverFile = &setting{name: "coverfile",
		usage: "append each Explore sweep's coverage (properties, Buggify sites, faults injected) as a line of JSON to `file` (simrt sweep sets it)"}

	flagReplay = &setting{name: "replay",
		usage: "replay the decision stream `file` (a shrunk reproduction) ahead of the seeded generator in every seed Run or Explore runs; give it the -simrt.seed it was saved with (a warning says when another test recorded it, or the run diverges from it)"}
	flagRecord = &setting{name: "record",
		usage: "write the decision stream of the run to `file` (one seed), for -simrt.replay"}
	flagReplayDefaults = &setting{name: "replaydefaults", isBool: true,
		usage: "where the -simrt.replay stream has no decision (past its end, another kind), decide the default (no yield, first choice, no fault) instead of the seed; without -simrt.replay, every decision"}
	flagShrink = &setting{name: "shrink", isBool: true,
		usage: "when a seed fails, shrink whatever caused it: the fault schedule of simtest.Nemesis (fewer, simpler faults), then the decision stream (shorter, more defaults), then the schedule again, keeping a candidate only if it fails the same way; save it and print the command that replays it"}
	flagShrinkOut = &setting{name: "shrinkout",
		usage: "save the shrunk stream to `file` (default testdata/simrt/TEST-seedN.stream in the package directory)"}
	flagShrinkRuns = &setting{name: "shrinkruns",
		usage: "at most `n` runs of candidate streams while shrinking (default 400; the failing run and the replay of the result come on top)"}
	flagInevitable = &setting{name: "inevitable", isBool: true,
		usage: "when a seed fails, find the earliest point of its decision stream after which nearly all continuations fail"}
	flagContinuations = &setting{name: "continuations",
		usage: "`n` fresh continuations per point tried by -simrt.inevitable (default 20)"}
	flagInevitableRate = &setting{name: "inevitablerate",
		usage: "the `fraction` of continuations that must fail for -simrt.inevitable to call a point inevitable (default 0.95)"}

	allSettings = []*setting{flagSeeds, flagSeed, flagShard, flagKeepGoing, flagTrace,
		flagCheck, flagParallel, flagEvents, flagCrypto, flagCoverFile,
		flagReplay, flagRecord, flagReplayDefaults, flagShrink, flagShrinkOut, flagShrinkRuns,
		flagInevitable, flagContinuations, flagInevitableRate}
)

func init() {
	for _, s := range allSettings {
		flag.Var(s, "simrt."+s.name, s.usage+" (env "+s.env()+")")
	}
}

// autoEvents asks for the default length of the event ring: reportEvents
// when one simulation runs, none in a sweep, where the ring would cost more
// than the simulation and a failure's replay shows the events anyway.
const (
	autoEvents   = -1
	reportEvents = 20
)

// settings is what one call of Run, Explore or CheckDeterminism was asked
// to do, from the flags and the environment.
type settings struct {
	seeds     sweep.Set // nil: the default
	seed      uint64
	hasSeed   bool
	shard     sweep.Shard
	keepGoing bool
	trace     string
	check     bool
	parallel  int
	events    int // autoEvents: 20 for one simulation, 0 in a sweep
	crypto    bool
	coverFile string // "": no coverage file

	replay         string // "": no stream replayed
	record         string // "": no stream recorded
	replayDefaults bool
	shrink         bool
	shrinkOut      string
	shrinkRuns     int
	inevitable     bool
	continuations  int
	inevitableRate float64
}

// loadSettings reads the flags, then the environment for every flag that
// was not given, and checks the files they name (checkPaths).
func loadSettings() (settings, error) {
	st, err := resolve(func(s *setting) (string, bool) {
		if s.set {
			return s.value, true
		}
		return os.LookupEnv(s.env())
	})
	if v, ok := os.LookupEnv(flagCrypto.env()); ok && flagCrypto.set {
		// SeedCrypto sets the variable for one test; it wins over the flag.
		if on, _ := strconv.ParseBool(v); on {
			st.crypto = true
		}
	}
	if err == nil {
		err = checkPaths(st)
	}
	return st, err
}

// seedWant says what a seed is, as the simrt command does.
const seedWant = "a seed is a number from 0 to 18446744073709551615"

// emptyWant says what an empty value of setting s should have been.
func emptyWant(s *setting) string {
	switch s {
	case flagSeeds:
		return "want a list of N and A..B (inclusive), e.g. 0..999 or 1,5,10..19; leave it out for the default (0..99, 0..9 with -short)"
	case flagSeed:
		return seedWant
	}
	return "want i/n, e.g. 0/4, or leave it out to run every seed"
}

// resolve builds settings from lookup, which returns a setting's raw value
// and whether it was given.
func resolve(lookup func(*setting) (string, bool)) (settings, error) {
	st := settings{shard: sweep.Shard{I: 0, N: 1}, parallel: runtime.GOMAXPROCS(0), events: autoEvents,
		shrinkRuns: defaultShrinkRuns, continuations: defaultContinuations, inevitableRate: defaultInevitableRate}
	var err error
	get := func(s *setting) (string, bool) {
		v, ok := lookup(s)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	boolean := func(s *setting) bool {
		v, ok := get(s)
		if !ok || err != nil {
			return false
		}
		b, e := strconv.ParseBool(v)
		if e != nil {
			err = fmt.Errorf("simtest: -simrt.%s=%q: not a boolean", s.name, v)
		}
		return b
	}
	number := func(s *setting, def, least int) int {
		v, ok := get(s)
		if !ok || err != nil {
			return def
		}
		n, e := strconv.Atoi(v)
		if e != nil || n < least {
			err = fmt.Errorf("simtest: -simrt.%s=%q: want a number of at least %d", s.name, v, least)
		}
		return n
	}
	// An empty seed list, seed or shard is refused rather than taken for
	// the default: -simrt.seeds= from a script whose variable was unset
	// would otherwise run the default 100 seeds without a word.
	for _, s := range []*setting{flagSeeds, flagSeed, flagShard} {
		if v, ok := lookup(s); ok && strings.TrimSpace(v) == "" {
			return st, fmt.Errorf("simtest: -simrt.%s is empty: %s", s.name, emptyWant(s))
		}
	}
	if v, ok := get(flagSeeds); ok {
		if st.seeds, err = sweep.Parse(v); err != nil {
			return st, fmt.Errorf("simtest: -simrt.seeds: %w", err)
		}
	}
	if v, ok := get(flagSeed); ok {
		if st.seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			return st, fmt.Errorf("simtest: -simrt.seed=%q: %s", v, seedWant)
		}
		st.hasSeed = true
	}
	if v, ok := get(flagShard); ok {
		if st.shard, err = sweep.ParseShard(v); err != nil {
			return st, fmt.Errorf("simtest: -simrt.shard: %w", err)
		}
	}
	st.trace, _ = get(flagTrace)
	st.coverFile, _ = get(flagCoverFile)
	st.keepGoing = boolean(flagKeepGoing)
	st.check = boolean(flagCheck)
	st.crypto = boolean(flagCrypto)

	st.parallel = number(flagParallel, st.parallel, 1)
	st.events = number(flagEvents, st.events, 0)

	st.replay, _ = get(flagReplay)
	st.record, _ = get(flagRecord)
	st.shrinkOut, _ = get(flagShrinkOut)
	st.replayDefaults = boolean(flagReplayDefaults)
	st.shrink = boolean(flagShrink) || shrinkScheduleOn() // the old name of the one shrink
	st.inevitable = boolean(flagInevitable)
	st.shrinkRuns = number(flagShrinkRuns, st.shrinkRuns, 1)
	st.continuations = number(flagContinuations, st.continuations, 1)
	if v, ok := get(flagInevitableRate); ok && err == nil {
		r, e := strconv.ParseFloat(v, 64)
		if e != nil || !(r > 0 && r <= 1) {
			err = fmt.Errorf("simtest: -simrt.%s=%q: want a fraction in (0, 1]", flagInevitableRate.name, v)
		}
		st.inevitableRate = r
	}
	return st, err
}
