//simrt:allow-file the command line and the sweep run outside the simulator: they start it

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/simrt/simrt/deterministic"
)

// Exit codes of raftkv.
const (
	exitOK    = 0 // a sweep passed (with -bug: found the bug), -seed N passed, -shrink or -table done
	exitFail  = 1 // a sweep failed (with -bug: did not find it), -seed N failed (with or without -bug)
	exitUsage = 2 // bad flags or arguments
)

// options is what the command line asks for.
type options struct {
	seeds     []seedRange
	seed      int64 // -1: sweep the seeds
	bugs      bugSet
	nodes     int
	clients   int
	duration  time.Duration
	parallel  int
	out       string
	quiet     bool
	keepGoing bool
	cpuProf   string
	noSwarm   bool
	yield     float64 // deterministic.Config.Scheduling.YieldProbability
	find      findOptions
}

// Bounds of the cluster's shape: a larger cluster or client count is a
// typo, not a test (each run's cost grows with nodes × nodes).
const (
	maxNodes   = 25
	maxClients = 100
)

// errUsage reports bad input that parseFlags has already described.
var errUsage = errors.New("raftkv: usage")

// parseFlags parses the command line. On bad input it writes one line
// saying what is wrong to stderr and returns errUsage; with -h it prints
// the usage and returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("raftkv", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // a bad flag is one line of ours, not the usage
	fs.Usage = func() {}
	var (
		seedsFlag = fs.String("seeds", "0..199", "seeds to sweep: N, A..B (inclusive), or a comma-separated list of both (with -bug: 0..999 unless given)")
		seedFlag  = fs.Int64("seed", -1, "replay one seed (≥ 0), verbosely")
		bugFlag   = fs.String("bug", "", "plant a bug and hunt for it ("+bugNames()+")")
		nodes     = fs.Int("nodes", 5, fmt.Sprintf("cluster size (3 to %d)", maxNodes))
		clients   = fs.Int("clients", 3, fmt.Sprintf("concurrent clients (1 to %d)", maxClients))
		duration  = fs.Duration("duration", 10*time.Second, "simulated time each run covers (not real time; at least 1s)")
		parallel  = fs.Int("parallel", runtime.GOMAXPROCS(0), "simulations run at once (at least 1)")
		out       = fs.String("out", os.TempDir(), "directory for the HTML visualisation of a linearizability violation")
		quiet     = fs.Bool("quiet", false, "no progress bar (there is none unless stderr is a terminal)")
		keepGoing = fs.Bool("keepgoing", false, "with -bug, run every seed and list every failure")
		cpuProf   = fs.String("cpuprofile", "", "write a CPU profile of the sweep to this file (go tool pprof)")
		swarm     = fs.Bool("swarm", true, "swarm testing: each seed draws a random subset of the fault kinds, with random weights (false: every kind, evenly)")
		yield     = fs.Float64("yield", deterministic.DefaultYieldProbability, "chance that a task yields at each scheduling point, 0..1 (0: only where it parks)")
	)
	checkFind := findFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(fs, stderr)
			return options{}, err
		}
		fmt.Fprintf(stderr, "raftkv: %v; see raftkv -h\n", err)
		return options{}, errUsage
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	bad := func(format string, a ...any) (options, error) {
		fmt.Fprintf(stderr, "raftkv: "+format+" (raftkv -h for help)\n", a...)
		return options{}, errUsage
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q: every option is a flag, such as -seeds %s", fs.Arg(0), fs.Arg(0))
	case given["seed"] && *seedFlag < 0:
		return bad("-seed %d: a seed is at least 0", *seedFlag)
	case given["seed"] && given["seeds"]:
		return bad("-seed replays one seed and -seeds sweeps several: give one of them")
	case *nodes < 3:
		return bad("-nodes %d: a cluster that survives a crash has at least 3 nodes", *nodes)
	case *nodes > maxNodes:
		return bad("-nodes %d: at most %d nodes", *nodes, maxNodes)
	case *clients < 1:
		return bad("-clients %d: at least 1 client", *clients)
	case *clients > maxClients:
		return bad("-clients %d: at most %d clients", *clients, maxClients)
	case *duration < time.Second:
		return bad("-duration %v: at least 1s of simulated time", *duration)
	case *parallel < 1:
		return bad("-parallel %d: at least 1 simulation at a time", *parallel)
	case !(*yield >= 0 && *yield <= 1): // NaN too
		return bad("-yield %v: a probability is between 0 and 1", *yield)
	}
	find, msg := checkFind(given)
	if msg != "" {
		return bad("%s", msg)
	}
	if *yield == 0 {
		*yield = deterministic.NoYield // the simulator's zero is its default
	}
	bs, err := parseBugs(*bugFlag)
	if err != nil {
		return bad("-bug: %v", err)
	}
	if (len(bs) > 0 || find.table) && !given["seeds"] {
		*seedsFlag = "0..999" // every planted bug falls within it with swarm; unsynced-vote with -swarm=false needs -seeds 0..2999 (doc.go)
	}
	seeds, err := parseSeeds(*seedsFlag)
	if err != nil {
		return bad("-seeds: %v", err)
	}
	return options{seeds: seeds, seed: *seedFlag, bugs: bs, nodes: *nodes, clients: *clients,
		duration: *duration, parallel: *parallel, out: *out, quiet: *quiet, keepGoing: *keepGoing,
		cpuProf: *cpuProf, noSwarm: !*swarm, yield: *yield, find: find}, nil
}

// usage prints the help of -h to w: what raftkv does, its planted bugs,
// its exit codes and its flags.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: raftkv [-seeds A..B | -seed N] [-bug NAME] [flags]\n\n")
	fmt.Fprintf(w, "Raftkv runs a replicated key-value store on etcd raft in simrt's simulator,\n")
	fmt.Fprintf(w, "under faults, and checks every history for linearizability. Durations are\n")
	fmt.Fprintf(w, "simulated time.\n\nplanted bugs:\n")
	for _, b := range bugs {
		fmt.Fprintf(w, "  %-17s %s\n", b.name, b.desc)
	}
	fmt.Fprintf(w, "\nexit codes:\n")
	fmt.Fprintf(w, "  0  a sweep's seeds all passed (with -bug: a seed found the bug);\n")
	fmt.Fprintf(w, "     -seed N passed; -shrink or -table finished\n")
	fmt.Fprintf(w, "  1  a sweep's seed failed (with -bug: no seed found the bug);\n")
	fmt.Fprintf(w, "     -seed N failed, with or without -bug (like go test)\n")
	fmt.Fprintf(w, "  2  bad flags or arguments (one line on stderr)\n\nflags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs raftkv with the command-line arguments args and returns its
// exit code.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	base := simConfig{Bugs: o.bugs, Nodes: o.nodes, Clients: o.clients, Duration: o.duration, OutDir: o.out, NoSwarm: o.noSwarm,
		YieldProbability: o.yield}
	if err := o.find.apply(&base); err != nil {
		fmt.Fprintln(stderr, "raftkv:", err)
		return exitUsage
	}
	switch {
	case o.find.shrink:
		return runShrink(o, base, stdout, stderr)
	case o.find.table:
		return runTable(o, base, stdout)
	}
	if o.seed >= 0 {
		base.Seed = uint64(o.seed)
		if !replay(stdout, base) {
			return exitFail
		}
		return exitOK
	}
	if o.cpuProf != "" {
		f, err := os.Create(o.cpuProf)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "raftkv: -cpuprofile:", err)
			return exitUsage
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	var bar io.Writer
	if f, ok := stderr.(*os.File); ok && !o.quiet {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			bar = stderr // a progress bar only on a terminal
		}
	}
	rep := sweep(sweepConfig{base: base, seeds: o.seeds, parallel: o.parallel, stopAtFirst: len(o.bugs) > 0 && !o.keepGoing, progress: bar})
	rep.print(stdout)
	if rep.err != nil {
		return exitUsage
	}
	if len(o.bugs) > 0 && len(rep.failures) == 0 || len(o.bugs) == 0 && len(rep.failures) > 0 {
		return exitFail
	}
	return exitOK
}

// replay runs one seed with its events logged to w and reports whether it
// passed.
func replay(w io.Writer, cfg simConfig) bool {
	cfg.Verbose = w
	o := runSeed(cfg)
	fmt.Fprintf(w, "\nseed %d (bugs: %v): %d operations, %v of simulated time, audit %s\n",
		o.Seed, cfg.Bugs, o.Ops, o.SimTime, o.Audit)
	fmt.Fprintf(w, "faults injected: %s\n", describeFaults(o.Faults, o.Crashes))
	if o.Failure == "" {
		fmt.Fprintf(w, "linearizable: %s operations, 0 violations\nPASS\n", commas(o.Ops))
		return true
	}
	fmt.Fprintf(w, "FAIL: %s\n", o.Failure)
	if o.Visual != "" {
		fmt.Fprintf(w, "visualisation: %s\n", o.Visual)
	}
	return false
}
