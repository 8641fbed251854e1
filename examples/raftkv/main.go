package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"
)

func main() {
	var (
		seedsFlag = flag.String("seeds", "0..199", "seeds to sweep: N, A..B (inclusive), or a comma-separated list of both (with -bug: 0..999 unless given)")
		seedFlag  = flag.Int64("seed", -1, "replay one seed, verbosely")
		bugFlag   = flag.String("bug", "", "plant a bug and hunt for it ("+bugNames()+")")
		nodes     = flag.Int("nodes", 5, "cluster size")
		clients   = flag.Int("clients", 3, "concurrent clients")
		duration  = flag.Duration("duration", 10*time.Second, "simulated length of each run")
		parallel  = flag.Int("parallel", runtime.GOMAXPROCS(0), "simulations run at once")
		out       = flag.String("out", os.TempDir(), "directory for the HTML visualisation of a linearizability violation")
		quiet     = flag.Bool("quiet", false, "no progress bar (there is none unless stderr is a terminal)")
		keepGoing = flag.Bool("keepgoing", false, "with -bug, run every seed and list every failure")
		cpuProf   = flag.String("cpuprofile", "", "write a CPU profile of the sweep to this file (go tool pprof)")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: raftkv [-seeds A..B | -seed N] [-bug NAME] [flags]\n\nplanted bugs:\n")
		for _, b := range bugs {
			fmt.Fprintf(flag.CommandLine.Output(), "  %-17s %s\n", b.name, b.desc)
		}
		fmt.Fprintln(flag.CommandLine.Output())
		flag.PrintDefaults()
	}
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		// A run allocates a few megabytes and drops them all: collecting
		// less often saves CPU time (GOGC=1000 against the default 100:
		// about 15% less, for about 60 MB of memory in all).
		debug.SetGCPercent(1000)
	}
	bs, err := parseBugs(*bugFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftkv:", err)
		os.Exit(2)
	}
	base := simConfig{Bugs: bs, Nodes: *nodes, Clients: *clients, Duration: *duration, OutDir: *out}
	if *seedFlag >= 0 {
		base.Seed = uint64(*seedFlag)
		if !replay(os.Stdout, base) {
			os.Exit(1)
		}
		return
	}
	if len(bs) > 0 && !flagSet("seeds") {
		*seedsFlag = "0..999" // the budget within which every planted bug must be found
	}
	seeds, err := parseSeeds(*seedsFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftkv:", err)
		os.Exit(2)
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "raftkv:", err)
			os.Exit(2)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	var bar io.Writer
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 && !*quiet {
		bar = os.Stderr // a progress bar only on a terminal
	}
	rep := sweep(sweepConfig{base: base, seeds: seeds, parallel: *parallel, stopAtFirst: len(bs) > 0 && !*keepGoing, progress: bar})
	rep.print(os.Stdout)
	if len(bs) > 0 && len(rep.failures) == 0 || len(bs) == 0 && len(rep.failures) > 0 {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// replay runs one seed with its events logged to w and reports whether it
// passed.
func replay(w io.Writer, cfg simConfig) bool {
	cfg.Verbose = w
	o := runSeed(cfg)
	fmt.Fprintf(w, "\nseed %d (bugs: %v): %d operations, %d whole-cluster crashes, %v simulated, audit %s\n",
		o.Seed, cfg.Bugs, o.Ops, o.Crashes, o.SimTime, o.Audit)
	if o.Failure == "" {
		fmt.Fprintln(w, "PASS")
		return true
	}
	fmt.Fprintf(w, "FAIL: %s\n", o.Failure)
	if o.Visual != "" {
		fmt.Fprintf(w, "visualisation: %s\n", o.Visual)
	}
	return false
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
