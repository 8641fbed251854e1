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
	cmd := exec.CommandContext(ctx, bin, append(args, s.extra...)...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	coverFile := s.coverFile()
	cmd.Env = append(os.Environ(), "SIMRT_COVERFILE="+coverFile) // an older simtest ignores it
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
	var (
		seen    int
		current uint64
		running bool
		block   []string
		pending *sweepFailure // the seed that ended last, not yet reported
		bad     bool          // it failed
		tail    []string      // the last lines, for a process that dies
	)
	flush := func() {
		if pending == nil {
			return
		}
		if bad {
			report(pending.seed, *pending, *pending)
		} else {
			report(pending.seed, *pending, nil)
		}
		pending = nil
	}
	finish := func() {
		if !running {
			return
		}
		running = false
		seen++
		bad = false
		for _, l := range block {
			if m := reReport.FindStringSubmatch(l); m != nil && m[1] == strconv.FormatUint(current, 10) {
				bad = true
			}
		}
		pending = &sweepFailure{seed: current, report: slices.Clone(block)}
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
			flush()
			current, _ = strconv.ParseUint(m[1], 10, 64)
			running, block = true, block[:0]
			continue
		}
		if m := reFail.FindStringSubmatch(line); m != nil {
			finish()
			if seed, _ := strconv.ParseUint(m[1], 10, 64); pending != nil && pending.seed == seed {
				bad = true
			}
			continue
		}
		if reEnd.MatchString(line) {
			finish()
			continue
		}
		if running {
			block = append(block, line)
		}
	}
	err = cmd.Wait()
	flush()
	if ctx.Err() != nil {
		return // interrupted: the seed still running was cut short, not failed
	}
	if running {
		running = false
		seen++
		f := sweepFailure{seed: current, report: append(block, fmt.Sprintf("(the test process died: %v)", err)), crashed: true}
		report(current, f, f)
		// The process ran the seeds in order: start a new one for the rest.
		if i := slices.Index(chunk, current); i >= 0 && i+1 < len(chunk) {
			s.runChunk(ctx, bin, dir, chunk[i+1:], report)
		}
		return
	}
	switch {
	case seen == 0 && err != nil:
		s.processFailed(chunk, fmt.Sprintf("%v\n%s", err, strings.Join(tail, "\n")))
	case seen == 0:
		s.noSeedRan()
	}
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

// noSeedRan records a test process that passed without running a seed:
// the test does not call simtest.Explore. The sweep stops.
func (s *sweep) noSeedRan() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noSeed = true
	s.cancel()
}
