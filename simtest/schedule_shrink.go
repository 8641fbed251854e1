package simtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/nemesis"
)

// flagShrinkSchedule is read by Nemesis, like flagSchedule.
var flagShrinkSchedule = &setting{name: "shrinkschedule", isBool: true,
	usage: "when a test that uses simtest.Nemesis fails, shrink its fault schedule (delta debugging, rerunning the seed in a fresh process per candidate) and write the result to a file"}

// maxScheduleRuns bounds the reruns of one schedule shrink.
const maxScheduleRuns = 300

// scheduleProbeTimeout bounds one rerun, in wall-clock time (the
// harness's clock, outside any simulation): a candidate schedule can make
// a run that never ends.
const scheduleProbeTimeout = 2 * time.Minute

func init() {
	registerFlag(flagShrinkSchedule)
}

func shrinkScheduleOn() bool {
	v, ok := flagShrinkSchedule.value, flagShrinkSchedule.set
	if !ok {
		v, ok = os.LookupEnv(flagShrinkSchedule.env())
	}
	on, _ := strconv.ParseBool(v)
	return ok && on
}

// shrinkSchedule shrinks s for the failing test name at seed (dropping
// faults and making the rest simpler, nemesis.ShrinkDeep): each
// candidate is written to a file and the test binary runs the test again
// with -simrt.seed and -simrt.schedule; a candidate is kept when that run
// fails. It returns the report to log.
func shrinkSchedule(name string, seed uint64, s nemesis.Schedule) string {
	dir, err := os.MkdirTemp("", "simrt-shrink-")
	if err != nil {
		return fmt.Sprintf("simrt: shrinking the schedule: %v", err)
	}
	defer os.RemoveAll(dir)
	pattern := runPatternOf(name)
	runs := 0
	var probeErr error
	fails := func(c nemesis.Schedule) bool {
		runs++
		path := filepath.Join(dir, fmt.Sprintf("c%d.schedule", runs))
		if err := c.WriteFile(path); err != nil {
			probeErr = err
			return false
		}
		defer os.Remove(path)
		ctx, cancel := context.WithTimeout(context.Background(), scheduleProbeTimeout)
		defer cancel()
		args := append([]string{"-test.run=" + pattern, "-test.count=1",
			"-simrt.seed=" + strconv.FormatUint(seed, 10), "-simrt.schedule=" + path,
			"-simrt.shrinkschedule=false", "-simrt.checkdeterminism=false", "-simrt.trace=", "-simrt.coverfile="},
			packageFlags()...)
		if testing.Short() {
			args = append(args, "-test.short")
		}
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = os.Environ()
		_, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			probeErr = err
			return false
		}
		return err != nil
	}
	// Delta debugging, then simpler faults (nemesis.ShrinkDeep); no fresh
	// variants, whose other seeds would be other subtests.
	small, _ := nemesis.ShrinkDeep(s, func(c nemesis.Schedule, _ int) bool { return fails(c) }, nemesis.DeepOptions{MaxRuns: maxScheduleRuns})
	if probeErr != nil {
		return fmt.Sprintf("simrt: shrinking the schedule: %v", probeErr)
	}
	out := filepath.Join(os.TempDir(), fmt.Sprintf("simrt-%s-seed%d.min.schedule", fileSafe(name), seed))
	if err := small.WriteFile(out); err != nil {
		return fmt.Sprintf("simrt: shrinking the schedule: %v", err)
	}
	return fmt.Sprintf("%s(%d runs)\nshrunk schedule written to %s; replay it: %s -simrt.schedule=%s",
		nemesis.Summary(s, small), runs, out, replayCommand(name, seed), out)
}

// runPatternOf returns the anchored -test.run pattern of a test name.
func runPatternOf(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
