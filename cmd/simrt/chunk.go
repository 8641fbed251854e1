package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	simsweep "github.com/simrt/simrt/sweep"
)

var (
	reRun    = regexp.MustCompile(`^=== RUN\s+\S+/seed=(\d+)$`)
	reEnd    = regexp.MustCompile(`^(=== (NAME|PAUSE|CONT)\s|\s*--- (PASS|FAIL|SKIP): |PASS$|FAIL$|ok\s)`)
	reFail   = regexp.MustCompile(`^\s*--- FAIL: \S+/seed=(\d+) `)
	reReport = regexp.MustCompile(`simrt: seed (\d+) (failed|is not deterministic)`)
)

// runChunk runs one test process over a chunk of seeds and reports each
// seed as soon as it is done. The process runs one seed at a time and
// streams its log (-test.v), so the lines after a seed's "=== RUN" are its
// report, up to the next "=== RUN" or the verdict lines that go test
// prints at the end, which also confirm the failures. A seed still running
// when the process dies is its cause, unless the sweep was interrupted; a
// new process then runs the seeds after it.
//
// Each seed's verdict goes to report (the sweep engine's) once, when the
// next seed starts or the process ends: go test prints a subtest's
// "--- FAIL" line when it ends, which can fail a seed whose report showed
// no failure (a t.Error after the simulation returned).
func (s *sweep) runChunk(ctx context.Context, bin, dir string, chunk []uint64, report func(uint64, sweepFailure, error)) {
	args := []string{"-test.run=" + s.run, "-test.v=true", "-test.count=1", "-test.timeout=0",
		"-simrt.seeds=" + simsweep.Compact(chunk).String(), "-simrt.parallel=1", "-simrt.keepgoing",
		"-simrt.events=0"} // the fastest runs; replay shows the events
	// The sweep judges the goals over all its seeds, so a process, which
	// runs one chunk, runs without strict mode: -simrt.strict=false after a
	// forwarded -simrt.strict, else SIMRT_STRICT=false (which an older
	// simtest, without the flag, ignores).
	args = append(args, s.extra...)
	if forwardedFlag(s.extra, "strict") != "" {
		args = append(args, "-simrt.strict=false")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	coverFile := s.coverFile()
	cmd.Env = append(os.Environ(), "SIMRT_COVERFILE="+coverFile, "SIMRT_STRICT=false") // an older simtest ignores them
	defer s.mergeCover(coverFile)
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
	log := &chunkLog{report: report}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		log.line(sc.Text())
	}
	err = cmd.Wait()
	log.flush()
	if ctx.Err() != nil {
		return // interrupted: the seed still running was cut short, not failed
	}
	if log.running {
		log.running = false
		log.seen++
		f := sweepFailure{seed: log.current, report: append(log.block, fmt.Sprintf("(the test process died: %v)", err)), crashed: true}
		report(log.current, f, f)
		// The process ran the seeds in order: start a new one for the rest.
		if i := slices.Index(chunk, log.current); i >= 0 && i+1 < len(chunk) {
			s.runChunk(ctx, bin, dir, chunk[i+1:], report)
		}
		return
	}
	switch {
	case log.seen == 0 && err != nil:
		s.processFailed(chunk, fmt.Sprintf("%v\n%s", err, strings.Join(log.tail, "\n")))
	case log.seen == 0:
		s.noSeedRan()
	case err != nil && (log.failed == 0 || exitCode(err) != 1):
		// Its seeds explain no failure (a failing seed exits 1): the
		// process failed after them, in a check of the test after
		// Explore, in TestMain (a leak check) or in a panic at exit.
		s.exitFailed(chunk, err, log.after)
	}
}

// exitCode returns the exit code of a process that err says failed, or -1.
func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// chunkLog reads the log of one test process line by line and reports
// each seed's verdict once, when the next seed starts (see runChunk).
type chunkLog struct {
	report  func(uint64, sweepFailure, error)
	seen    int // seeds that ended
	current uint64
	running bool
	block   []string      // the running seed's lines
	pending *sweepFailure // the seed that ended last, not yet reported
	bad     bool          // it failed
	tail    []string      // the last lines, for a process that dies
	failed  int           // seeds reported failing
	after   []string      // the first lines outside any seed since the last one started
}

// maxAfter is how many lines after its seeds a failed process's report shows.
const maxAfter = 30

// line takes one line of the log.
func (c *chunkLog) line(line string) {
	c.tail = append(c.tail, line)
	if len(c.tail) > 40 {
		c.tail = c.tail[1:]
	}
	if m := reRun.FindStringSubmatch(line); m != nil {
		c.finish()
		c.flush()
		c.current, _ = strconv.ParseUint(m[1], 10, 64)
		c.running, c.block, c.after = true, c.block[:0], c.after[:0]
		return
	}
	if m := reFail.FindStringSubmatch(line); m != nil {
		c.finish()
		if seed, _ := strconv.ParseUint(m[1], 10, 64); c.pending != nil && c.pending.seed == seed {
			c.bad = true
		}
		return
	}
	if reEnd.MatchString(line) {
		c.finish()
		return
	}
	switch {
	case c.running:
		c.block = append(c.block, line)
	case c.seen > 0 && len(c.after) < maxAfter && !strings.HasPrefix(line, "=== ") && strings.TrimSpace(line) != "":
		c.after = append(c.after, line)
	}
}

// finish ends the running seed: it is pending until the next one starts.
func (c *chunkLog) finish() {
	if !c.running {
		return
	}
	c.running = false
	c.seen++
	c.bad = false
	for _, l := range c.block {
		if m := reReport.FindStringSubmatch(l); m != nil && m[1] == strconv.FormatUint(c.current, 10) {
			c.bad = true
		}
	}
	c.pending = &sweepFailure{seed: c.current, report: slices.Clone(c.block)}
}

// flush reports the pending seed.
func (c *chunkLog) flush() {
	if c.pending == nil {
		return
	}
	if c.bad {
		c.failed++
		c.report(c.pending.seed, *c.pending, *c.pending)
	} else {
		c.report(c.pending.seed, *c.pending, nil)
	}
	c.pending = nil
}

// progress hears of each seed as it ends (the sweep engine calls it, one
// seed at a time): it prints a failure above the bar and moves the bar.
func (s *sweep) progress(p simsweep.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Err != nil {
		if s.bar != nil {
			s.bar.Clear()
		}
		fmt.Fprintf(s.events, "FAIL seed %d: %s\n    replay: %s\n", p.Seed, p.Err, s.replayCommand(p.Seed, false))
	}
	if s.bar != nil {
		s.bar.Describe("sweep " + s.pkg + " " + s.runFlag + rateText(int(p.Done), time.Since(s.started)))
		s.bar.Add(1)
	}
}

// processFailed reports a test process that failed without naming a seed
// (a crash before the first seed, a flag the binary refuses). Every chunk
// would fail the same way, so the first such failure is printed and the
// sweep stops.
func (s *sweep) processFailed(chunk []uint64, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.processes++
	if s.processes > 1 {
		return
	}
	if s.bar != nil {
		s.bar.Clear()
	}
	fmt.Fprintf(s.events, "FAIL the test process for seeds %s failed before its first seed; stopping the sweep:\n%s\n",
		simsweep.Compact(chunk), strings.TrimSpace(why))
	s.cancel()
}

// exitFailed reports a test process that failed after its seeds ran,
// with err and the lines it printed outside them. The sweep fails; it goes
// on, since the seeds themselves ran. Only the first such process is
// printed: every chunk is likely to fail the same way.
func (s *sweep) exitFailed(chunk []uint64, err error, after []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exitFailures++
	if s.exitFailures > 1 {
		return
	}
	if s.bar != nil {
		s.bar.Clear()
	}
	what := "(it printed nothing outside its seeds)"
	if len(after) > 0 {
		what = strings.Join(after, "\n")
	}
	fmt.Fprintf(s.events, "FAIL the test process for seeds %s failed after its seeds ran (%v): a check after Explore, in TestMain (a leak check) or at exit:\n%s\n",
		simsweep.Compact(chunk), err, what)
}

// noSeedRan records a test process that passed without running a seed:
// the test does not call simtest.Explore. The sweep stops.
func (s *sweep) noSeedRan() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSeed = true
	s.cancel()
}
