package simtest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/nemesis"
)

// flagSchedule is read by Nemesis; like the other flags it is written once,
// while the command line is parsed.
var flagSchedule = &setting{name: "schedule",
	usage: "run the fault schedule in `file` (written by a failing seed or by nemesis.Shrink) instead of drawing one from the seed"}

func init() {
	registerFlag(flagSchedule)
}

// registerFlag registers a setting of this file's as the package's
// settings are registered.
func registerFlag(s *setting) {
	flag.Var(s, "simrt."+s.name, s.usage+" (env "+s.env()+")")
}

// schedulePath returns the schedule file given with -simrt.schedule (or
// SIMRT_SCHEDULE), or "".
func schedulePath() string {
	if flagSchedule.set {
		return flagSchedule.value
	}
	v, _ := os.LookupEnv(flagSchedule.env())
	return v
}

// Nemesis starts a nemesis on the nodes ctx has (add them first): it runs
// the schedule in the file given with -simrt.schedule, or else the one
// drawn from the seed with cfg (nemesis.Draw from nemesis.SeedRand, which
// leaves the run's own randomness alone, so the file and the seed give the
// same run). If the test fails, the schedule and what each event did are
// logged, the schedule is written to a file, and the command that replays
// the seed with that file is printed: edit or shrink the file and rerun.
// With -simrt.shrink the failure is shrunk, this schedule first
// (ShrinkFailure: the faults, the decision stream, the faults again, each
// candidate rerun in a fresh process of the test binary and kept when it
// fails the same way), and -simrt.inevitable's continuations run this
// schedule.
// Bad configuration or a bad file fails the test with t.Fatal. Call it from
// the root task.
func Nemesis(t *testing.T, ctx *deterministic.Context, cfg nemesis.Config) *nemesis.Nemesis {
	t.Helper()
	var s nemesis.Schedule
	var err error
	from := "drawn from the seed"
	if path := schedulePath(); path != "" {
		s, err = nemesis.ReadSchedule(path)
		from = "read from " + path
	} else {
		s, err = nemesis.Draw(nemesis.SeedRand(ctx.Seed()), nemesis.Names(ctx), cfg)
	}
	if err != nil {
		t.Fatalf("simtest.Nemesis: %v", err)
	}
	m, err := nemesis.Run(ctx, s)
	if err != nil {
		t.Fatalf("simtest.Nemesis: %v", err)
	}
	seed, name := ctx.Seed(), t.Name()
	noteSchedule(t, s)
	t.Cleanup(func() {
		ranSchedules.Delete(t)
		if !t.Failed() {
			return
		}
		path := scheduleFile(name, seed)
		if artifactsOn() {
			path = filepath.Join(t.ArtifactDir(), fmt.Sprintf("seed%d.schedule", seed))
		}
		msg := fmt.Sprintf("simrt: seed %d ran a schedule %s\n%s", seed, from, m.Report())
		if err := s.WriteFile(path); err != nil {
			msg += fmt.Sprintf("could not write the schedule: %v\n", err)
		} else {
			msg += fmt.Sprintf("schedule written to %s; replay it: %s -simrt.schedule=%s", path, replayCommand(name, seed), path)
		}
		t.Log(msg)
	})
	return m
}

// ranSchedules holds, for each test (or seed's subtest) running now, the
// schedule its Nemesis ran, for -simrt.shrink and -simrt.inevitable,
// which start after the simulation has ended and before the test's
// cleanups run. It is the harness's, keyed by test, never read by a
// simulation.
var ranSchedules sync.Map // *testing.T -> *ranSchedule

// ranSchedule is the schedule a test's Nemesis ran, and how many times
// Nemesis was called (one schedule per call: the epochs of RunEpochs each
// start one).
type ranSchedule struct {
	s     nemesis.Schedule
	calls int
}

func noteSchedule(t *testing.T, s nemesis.Schedule) {
	v, _ := ranSchedules.LoadOrStore(t, &ranSchedule{})
	r := v.(*ranSchedule)
	r.s, r.calls = s, r.calls+1
}

// scheduleRan returns the schedule t's Nemesis ran, or nil when it ran
// none or several.
func scheduleRan(t *testing.T) *nemesis.Schedule {
	v, ok := ranSchedules.Load(t)
	if !ok || v.(*ranSchedule).calls != 1 {
		return nil
	}
	s := v.(*ranSchedule).s
	return &s
}

// scheduleFile returns where a failing seed's schedule is written (unless
// go test runs with -artifacts: then in the test's artifact directory): the
// temporary directory, under a name that holds the package's directory
// (go test runs a test there), so that two packages' tests of one name do
// not overwrite each other's schedule.
func scheduleFile(test string, seed uint64) string {
	pkg := "pkg"
	if wd, err := os.Getwd(); err == nil {
		pkg = fileSafe(strings.TrimPrefix(filepath.ToSlash(wd), "/"))
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("simrt-%s-%s-seed%d.schedule", pkg, fileSafe(test), seed))
}

// fileSafe turns a test name into a file name.
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}
