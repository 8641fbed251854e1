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

	seeds "github.com/simrt/simrt/sweep"
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
func (s *sweep) runChunk(ctx context.Context, bin, dir string, chunk []uint64) {
	args := []string{"-test.run=" + s.run, "-test.v=true", "-test.count=1", "-test.timeout=0",
		"-simrt.seeds=" + seeds.Compact(chunk).String(), "-simrt.parallel=1", "-simrt.keepgoing",
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
		if reEnd.MatchString(line) {
			finish()
			continue
		}
		if running {
			block = append(block, line)
		}
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return // interrupted: the seed still running was cut short, not failed
	}
	if running {
		running = false
		seen++
		failed[current] = true
		s.seedCrashed(current, append(block, fmt.Sprintf("(the test process died: %v)", err)))
		// The process ran the seeds in order: start a new one for the rest.
		if i := slices.Index(chunk, current); i >= 0 && i+1 < len(chunk) {
			s.runChunk(ctx, bin, dir, chunk[i+1:])
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

// seedDone records one seed's verdict, printing a failure above the bar.
func (s *sweep) seedDone(seed uint64, failed bool, report []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	if failed {
		s.addFailure(sweepFailure{seed: seed, report: slices.Clone(report)})
	}
	s.tick()
}

// seedCrashed records a seed whose test process died while it ran.
func (s *sweep) seedCrashed(seed uint64, report []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
	s.addFailure(sweepFailure{seed: seed, report: slices.Clone(report), crashed: true})
	s.tick()
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
	s.addFailure(sweepFailure{seed: seed, report: report})
}

// addFailure records f and prints it above the bar; s.mu is held.
func (s *sweep) addFailure(f sweepFailure) {
	s.failures = append(s.failures, f)
	if s.bar != nil {
		s.bar.Clear()
	}
	fmt.Fprintf(s.events, "FAIL seed %d: %s\n    replay: %s\n", f.seed, f.headline(), s.replayCommand(f.seed, false))
}

// tick moves the progress bar one seed on; s.mu is held.
func (s *sweep) tick() {
	if s.bar == nil {
		return
	}
	s.bar.Describe("sweep " + s.pkg + " " + s.runFlag + rateText(s.done, time.Since(s.started)))
	s.bar.Add(1)
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
		seeds.Compact(chunk), strings.TrimSpace(why))
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
