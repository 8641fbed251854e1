package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/simrt/simrt/internal/seeds"
)

const sweepUsage = `usage: simrt sweep ./pkg -run TestX [-seeds 0..9999] [-shard i/n] [-parallel N] [-failfast] [-- test flags]

Sweep runs the simtest.Explore test TestX of one package over many seeds:
it builds the test binary once, splits the seeds into chunks and runs the
chunks as parallel processes, one simulation at a time in each (so that
-simrt.cryptorand works too). It shows a progress bar with seeds per
second, prints each failing seed with its replay command as soon as it
fails, and ends with a summary; it exits 1 if any seed failed.
`

// sweep is one run of "simrt sweep": what to run and how.
type sweep struct {
	pkg, run  string
	runFlag   string   // -run as given, for the commands we print
	seeds     []uint64 // this shard's seeds, in order
	parallel  int
	chunk     int
	failFast  bool
	extra     []string // flags for the test binary
	stdout    io.Writer
	stderr    io.Writer
	bar       *progressbar.ProgressBar
	mu        sync.Mutex // guards the fields below and the output
	failures  []sweepFailure
	done      int
	processes int // chunk processes that failed without a failing seed
}

// sweepFailure is one failing seed and the first lines of its report.
type sweepFailure struct {
	seed   uint64
	report []string
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sweepUsage, "\nflags:\n"); fs.PrintDefaults() }
	run := fs.String("run", "", "the test to sweep (a name, or a -run regular expression)")
	seedList := fs.String("seeds", "0..999", "seeds: N, A..B (inclusive), or a comma-separated list of both")
	shardFlag := fs.String("shard", "0/1", "take shard i/n of the seeds: every n-th seed from position i")
	parallel := fs.Int("parallel", runtime.NumCPU(), "test processes at once")
	chunk := fs.Int("chunk", 0, "seeds per test process (default: about 4 chunks per process, at most 2000)")
	failFast := fs.Bool("failfast", false, "start no new chunk after the first failing seed")
	pkg, extra, err := parseArgs(fs, args)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintf(stderr, "simrt sweep: %v\n\n", err)
			fs.Usage()
		}
		return 2
	}
	set, err := seeds.Parse(*seedList)
	if err != nil {
		fmt.Fprintf(stderr, "simrt sweep: -seeds: %v\n", err)
		return 2
	}
	sh, err := seeds.ParseShard(*shardFlag)
	if err != nil {
		fmt.Fprintf(stderr, "simrt sweep: -shard: %v\n", err)
		return 2
	}
	if *run == "" || *parallel < 1 || *chunk < 0 {
		fmt.Fprintln(stderr, "simrt sweep: -run names the test to sweep; -parallel must be at least 1")
		return 2
	}
	if n := sh.Len(set.Len()); n > 100_000_000 {
		fmt.Fprintf(stderr, "simrt sweep: %d seeds in one sweep; split it with -shard\n", n)
		return 2
	}
	s := &sweep{pkg: pkg, run: testPattern(*run), runFlag: *run, seeds: slices.Collect(sh.Pick(set)),
		parallel: *parallel, chunk: *chunk, failFast: *failFast, extra: extra, stdout: stdout, stderr: stderr}
	return s.exec()
}

// exec builds the test binary, runs every chunk and prints the summary.
func (s *sweep) exec() int {
	dir, err := packageDir(s.pkg)
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return 2
	}
	tmp, err := os.MkdirTemp("", "simrt-sweep-")
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(s.stderr, "building %s\n", s.pkg)
	bin, err := buildTest(s.pkg, tmp)
	if err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
		return 2
	}

	chunks := s.chunks()
	s.bar = progressbar.NewOptions(len(s.seeds),
		progressbar.OptionSetWriter(s.stderr),
		progressbar.OptionSetDescription("sweep "+s.pkg+" "+s.run),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("seeds"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work := make(chan []uint64)
	var wg sync.WaitGroup
	for range min(s.parallel, len(chunks)) {
		wg.Go(func() {
			for c := range work {
				s.runChunk(ctx, bin, dir, c)
			}
		})
	}
	for _, c := range chunks {
		s.mu.Lock()
		stop := s.failFast && len(s.failures) > 0
		s.mu.Unlock()
		if stop {
			break
		}
		work <- c
	}
	close(work)
	wg.Wait()
	s.bar.Finish()
	elapsed := time.Since(start)
	return s.summary(elapsed)
}

// chunks splits the seeds into the lists that one test process runs.
func (s *sweep) chunks() [][]uint64 {
	size := s.chunk
	if size == 0 {
		size = min(max(len(s.seeds)/(s.parallel*4), 1), 2000)
	}
	var out [][]uint64
	for c := range slices.Chunk(s.seeds, size) {
		out = append(out, c)
	}
	return out
}

var (
	reRun    = regexp.MustCompile(`^=== RUN\s+\S+/seed=(\d+)$`)
	reFail   = regexp.MustCompile(`^\s*--- FAIL: \S+/seed=(\d+) `)
	reReport = regexp.MustCompile(`simrt: seed (\d+) (failed|is not deterministic)`)
)

// runChunk runs one test process over a chunk of seeds and reports each
// seed as soon as it is done. The process runs one seed at a time and
// streams its log (-test.v), so the lines after a seed's "=== RUN" are its
// report, and the next "=== RUN" means it is done; the verdict lines that
// go test prints at the end confirm the failures.
func (s *sweep) runChunk(ctx context.Context, bin, dir string, chunk []uint64) {
	args := []string{"-test.run=" + s.run, "-test.v=true", "-test.count=1", "-test.timeout=0",
		"-simrt.seeds=" + seeds.Compact(chunk).String(), "-simrt.parallel=1", "-simrt.keepgoing",
		"-simrt.events=0"} // the fastest runs; replay shows the events
	cmd := exec.CommandContext(ctx, bin, append(args, s.extra...)...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.processFailed(chunk, err.Error())
		return
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		s.processFailed(chunk, err.Error())
		return
	}
	var (
		seen    int
		current uint64
		running bool
		block   []string
		failed  = map[uint64]bool{}
		blocks  = map[uint64][]string{} // the output of each seed that had some
		tail    []string                // the last lines, for a process that dies
	)
	finish := func() {
		if !running {
			return
		}
		running = false
		seen++
		bad := false
		for _, l := range block {
			if m := reReport.FindStringSubmatch(l); m != nil && m[1] == strconv.FormatUint(current, 10) {
				bad = true
			}
		}
		if bad {
			failed[current] = true
		}
		if len(block) > 0 {
			blocks[current] = slices.Clone(block)
		}
		s.seedDone(current, bad, block)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		tail = append(tail, line)
		if len(tail) > 40 {
			tail = tail[1:]
		}
		if m := reRun.FindStringSubmatch(line); m != nil {
			finish()
			current, _ = strconv.ParseUint(m[1], 10, 64)
			running, block = true, block[:0]
			continue
		}
		if m := reFail.FindStringSubmatch(line); m != nil {
			finish()
			if seed, _ := strconv.ParseUint(m[1], 10, 64); !failed[seed] {
				failed[seed] = true
				s.lateFailure(seed, blocks[seed])
			}
			continue
		}
		if running {
			block = append(block, line)
		}
	}
	finish()
	err = cmd.Wait()
	if seen == 0 && err != nil {
		s.processFailed(chunk, fmt.Sprintf("%v\n%s", err, strings.Join(tail, "\n")))
	}
}

// seedDone records one seed's verdict, printing a failure above the bar.
func (s *sweep) seedDone(seed uint64, failed bool, report []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	if failed {
		f := sweepFailure{seed: seed, report: slices.Clone(report)}
		s.failures = append(s.failures, f)
		s.bar.Clear()
		fmt.Fprintf(s.stdout, "FAIL seed %d: %s\n    replay: simrt replay %s -run %s -seed %d\n",
			seed, f.headline(), s.pkg, s.runFlag, seed)
	}
	s.bar.Add(1)
}

// lateFailure records a seed that passed its report but failed its
// verdict (a failure simtest did not report, such as a t.Error after the
// simulation returned).
func (s *sweep) lateFailure(seed uint64, report []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.failures {
		if f.seed == seed {
			return
		}
	}
	f := sweepFailure{seed: seed, report: report}
	s.failures = append(s.failures, f)
	s.bar.Clear()
	fmt.Fprintf(s.stdout, "FAIL seed %d: %s\n    replay: simrt replay %s -run %s -seed %d\n",
		seed, f.headline(), s.pkg, s.runFlag, seed)
}

// processFailed reports a test process that failed without naming a seed
// (a build problem, a crash, a test that does not call Explore).
func (s *sweep) processFailed(chunk []uint64, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.processes++
	s.bar.Clear()
	fmt.Fprintf(s.stdout, "FAIL test process for seeds %s reported no seed:\n%s\n", seeds.Compact(chunk), why)
}

// headline is the report's most telling line: the test's own message
// when it failed with t.Fatal or t.Error, what failed otherwise, and when.
func (f sweepFailure) headline() string {
	for i, l := range f.report {
		j := strings.Index(l, "simrt: seed ")
		if j < 0 || i+1 >= len(f.report) {
			continue
		}
		what := strings.TrimSpace(f.report[i+1])
		if strings.HasPrefix(what, "the test failed") && i > 0 {
			what = strings.TrimSpace(f.report[i-1])
		}
		if at := strings.Index(l, " failed at "); at >= 0 {
			when, _, _ := strings.Cut(l[at+len(" failed at "):], " ")
			return what + " (at " + when + ")"
		}
		return what
	}
	for _, l := range f.report {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return "failed"
}

// summary prints the totals and returns the exit code.
func (s *sweep) summary(elapsed time.Duration) int {
	rate := float64(s.done) / max(elapsed.Seconds(), 1e-9)
	fmt.Fprintf(s.stdout, "\nswept %d of %d seeds of %s %s in %v (%.0f seeds/s): %d failed\n",
		s.done, len(s.seeds), s.pkg, s.runFlag, elapsed.Round(time.Millisecond), rate, len(s.failures))
	if len(s.failures) > 0 {
		slices.SortFunc(s.failures, func(a, b sweepFailure) int { return cmp.Compare(a.seed, b.seed) })
		failed := make([]uint64, len(s.failures))
		for i, f := range s.failures {
			failed[i] = f.seed
		}
		fmt.Fprintf(s.stdout, "failing seeds: %s\nreplay the first: simrt replay %s -run %s -seed %d -trace seed%d.json\n",
			seeds.Compact(failed), s.pkg, s.runFlag, failed[0], failed[0])
	}
	if s.processes > 0 {
		fmt.Fprintf(s.stdout, "%d test processes failed without naming a seed (see above)\n", s.processes)
	}
	if len(s.failures) > 0 || s.processes > 0 {
		return 1
	}
	if s.done == 0 && len(s.seeds) > 0 {
		fmt.Fprintf(s.stdout, "no seed ran: does -run %s match a test that calls simtest.Explore or simtest.Run?\n", s.runFlag)
		return 1
	}
	return 0
}
