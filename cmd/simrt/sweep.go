package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"

	simsweep "github.com/simrt/simrt/sweep"
)

const sweepUsage = `usage: simrt sweep ./pkg -run TestX [-seeds 0..9999] [-shard i/n] [-parallel N] [-failfast] [-quiet] [-json] [-- test flags]

Sweep runs the simtest.Explore test TestX of one package over many seeds:
it builds the test binary once, splits the seeds into chunks and runs the
chunks as parallel processes, one simulation at a time in each (so that
-simrt.cryptorand works too). Run it from inside the module that holds the
package, as you would run go test. It prints each failing seed with its
replay command as soon as it fails, and ends with a summary (as JSON with
-json): seeds run and failed, faults injected by kind and what they did
(sends held, dials refused, storage operations failed...), and the properties
(Always, Sometimes, ...) and Buggify sites the seeds reached; on a terminal it shows a progress bar. Ctrl-C stops the sweep and
prints what it covered so far.

exit codes: 0 every seed passed; 1 a seed failed or a test process failed
(before its first seed, or after its seeds: a check after Explore, a TestMain
or leak check, a panic at exit);
2 bad flags, or a package or test that cannot be swept; 130 interrupted.
`

// Exit codes of sweep.
const (
	exitPassed      = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// sweep is one run of "simrt sweep": what to run and how.
type sweep struct {
	pkg, run string
	runFlag  string       // -run as given, for the commands we print
	seeds    simsweep.Set // the seeds
	shard    simsweep.Shard
	parallel int
	chunk    int
	failFast bool
	asJSON   bool
	strict   bool     // -simrt.strict (or SIMRT_STRICT): missed goals fail the sweep
	extra    []string // flags for the test binary
	stdout   io.Writer
	stderr   io.Writer
	events   io.Writer // where failures are printed as they happen
	bar      *progressbar.ProgressBar
	started  time.Time
	tmp      string // the sweep's temporary directory, for cover files

	mu           sync.Mutex     // guards the fields below and the output
	failures     []sweepFailure // in seed order
	done         int            // seeds the report counts
	processes    int            // chunk processes that failed without a failing seed
	exitFailures int            // chunk processes that failed after their seeds ran
	noSeed       bool           // a chunk process ran no seed: the test does not call Explore
	cancel       context.CancelFunc
	cover        coverage // merged from each test process's cover file
	covers       int      // cover files named so far
}

// sweepFailure is one failing seed and the first lines of its report. It
// is the error of a failing seed in the sweep engine (Error: the headline).
type sweepFailure struct {
	seed    uint64
	report  []string
	crashed bool // the test process died while the seed ran
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sweep")
	run := fs.String("run", "", "the test to sweep (a name, or a -run regular expression)")
	seedList := fs.String("seeds", "0..999", "seeds: N, A..B (inclusive), or a comma-separated list of both")
	shardFlag := fs.String("shard", "0/1", "take shard i/n of the seeds: every n-th seed from position i")
	parallel := fs.Int("parallel", runtime.NumCPU(), "test processes at once (at least 1)")
	chunk := fs.Int("chunk", 0, "seeds per test process (default: about 4 chunks per process, at most 2000)")
	failFast := fs.Bool("failfast", false, "start no new chunk after the first failing seed, and report the seeds up to the lowest failing one")
	quiet := fs.Bool("quiet", false, "no progress bar (there is none unless stderr is a terminal)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout (failures as they happen go to stderr)")
	pkg, extra, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(fs, sweepUsage, err, stdout, stderr)
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "simrt sweep: "+format+"\n", a...)
		return exitUsage
	}
	if *run == "" {
		return bad("-run names the test to sweep, such as -run TestReplication")
	}
	if f := forwardedFlag(extra, "seed", "seeds", "shard"); f != "" {
		return bad("%s after --: sweep sets it; choose the seeds with its own -seeds and -shard", f)
	}
	if *parallel < 1 {
		return bad("-parallel %d: at least 1 test process", *parallel)
	}
	if *chunk < 0 {
		return bad("-chunk %d: at least 1 seed per process (0: choose)", *chunk)
	}
	strict, err := strictFlag(extra, os.LookupEnv)
	if err != nil {
		return bad("%v", err)
	}
	set, err := simsweep.Parse(*seedList)
	if err != nil {
		return bad("-seeds: %v", err)
	}
	sh, err := simsweep.ParseShard(*shardFlag)
	if err != nil {
		return bad("-shard: %v", err)
	}
	n := sh.Len(set.Len())
	if n > 100_000_000 {
		return bad("-seeds: %d seeds in one sweep; split it with -shard", n)
	}
	if n == 0 {
		return bad("-shard %s of -seeds %s selects no seed", *shardFlag, *seedList)
	}
	s := &sweep{pkg: pkg, run: testPattern(*run), runFlag: *run, seeds: set, shard: sh,
		parallel: *parallel, chunk: *chunk, failFast: *failFast, asJSON: *asJSON, strict: strict, extra: extra,
		stdout: stdout, stderr: stderr, events: stdout}
	if *asJSON {
		s.events = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return s.exec(ctx, isTerminal(stderr) && !*quiet)
}

// isTerminal reports whether w is a terminal, where a progress bar can
// redraw itself.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// exec builds the test binary, checks that it can be swept, runs every
// chunk until ctx is cancelled and prints the summary.
func (s *sweep) exec(interrupt context.Context, bar bool) int {
	dir, err := packageDir(s.pkg)
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return exitUsage
	}
	tmp, err := os.MkdirTemp("", "simrt-sweep-")
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return exitUsage
	}
	defer os.RemoveAll(tmp)
	s.tmp = tmp
	if !s.asJSON {
		fmt.Fprintf(s.stderr, "building %s\n", s.pkg)
	}
	bin, err := buildTest(s.pkg, tmp)
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return exitUsage
	}
	if err := checkSweepable(bin, dir, s.pkg, s.run, s.runFlag); err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return exitUsage
	}

	if bar {
		s.bar = newBar(s.stderr, s.total(), "sweep "+s.pkg+" "+s.runFlag)
	}
	s.started = time.Now()
	ctx, cancel := context.WithCancel(interrupt)
	defer cancel()
	s.cancel = cancel
	rep, err := simsweep.RunBatches(simsweep.Config[sweepFailure]{
		Seeds: s.seeds, Shard: s.shard, Workers: s.parallel, KeepGoing: !s.failFast, Context: ctx,
		OnProgress: s.progress,
	}, s.chunkSize(), func(_ *simsweep.Worker, chunk []uint64, report func(uint64, sweepFailure, error)) {
		s.runChunk(ctx, bin, dir, chunk, report)
	})
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return exitUsage
	}
	s.done = int(rep.Ran)
	for _, f := range rep.Failures {
		s.failures = append(s.failures, f.Value)
	}
	interrupted := interrupt.Err() != nil
	if s.bar != nil {
		if interrupted {
			s.bar.Exit()
		} else {
			s.bar.Finish()
		}
		fmt.Fprintln(s.stderr)
	}
	return s.summary(time.Since(s.started), interrupted)
}

// total returns the number of seeds the sweep selects.
func (s *sweep) total() int { return int(s.shard.Len(s.seeds.Len())) }

// chunkSize returns how many seeds one test process runs: -chunk, or
// about 4 chunks per process, at most 2000 seeds.
func (s *sweep) chunkSize() int {
	if s.chunk > 0 {
		return s.chunk
	}
	return min(max(s.total()/(s.parallel*4), 1), 2000)
}

// newBar returns the progress bar of a sweep of total seeds. It shows no
// rate of its own: describe adds one once a second has passed, since the
// first seed alone would show an absurd one.
func newBar(w io.Writer, total int, desc string) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)
}

// rateText is the rate the progress bar shows: nothing before a second
// has passed, then ", N seeds/s" (the bar shows the time left itself).
func rateText(done int, elapsed time.Duration) string {
	if elapsed < time.Second || done == 0 {
		return ""
	}
	return fmt.Sprintf(", %.0f seeds/s", float64(done)/elapsed.Seconds())
}

// strictFlag reports whether the test flags after -- (or else the
// SIMRT_STRICT environment variable, which lookup reads) ask for strict
// mode. The sweep judges the goals itself, over all its seeds: each test
// process sees only its chunk and runs with -simrt.strict=false.
func strictFlag(extra []string, lookup func(string) (string, bool)) (bool, error) {
	v, from, found := "", "", false
	for _, a := range extra {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "simrt.strict" {
			continue
		}
		v, from, found = "true", "-simrt.strict", true
		if hasVal {
			v, from = val, "-simrt.strict="+val
		}
	}
	if !found {
		if v, found = lookup("SIMRT_STRICT"); !found || strings.TrimSpace(v) == "" {
			return false, nil
		}
		from = "SIMRT_STRICT=" + v
	}
	on, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("%s: not a boolean (true or false)", from)
	}
	return on, nil
}
