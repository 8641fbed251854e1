package simrt_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/realtime"
)

// The differential test of the blocking primitives: random programs of
// tasks over Chan (unbuffered, bounded, unbounded), Select, Mutex,
// RWMutex, WaitGroup, Once, Signal, Oneshot, Ticker and Timeout, each run
// under every scheduler of the simulator and on the production runtime,
// and every run checked against the model (diff_model_test.go). A bigger
// sweep:
//
//	go test -run 'TestDifferential$' -simrt.diff.programs=5000 .
//
// and the fuzz target:
//
//	go test -run '^$' -fuzz FuzzDifferential -fuzztime 2m .

var diffPrograms = flag.Int("simrt.diff.programs", 0,
	"programs TestDifferential runs (each under every schedule, diffSeeds seeds each; TestDifferentialRealtime runs a third, once each); 0 means 400, or 100 with -short")

// diffSchedules are the simulator configurations every program runs under.
var diffSchedules = []struct {
	name string
	cfg  deterministic.Config
}{
	{"uniform", deterministic.Config{}},
	{"uniform-noyield", deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}},
	{"pct", deterministic.Config{Scheduling: deterministic.Scheduling{Scheduler: deterministic.PCT}}},
	{"pct-depth5", deterministic.Config{Scheduling: deterministic.Scheduling{Scheduler: deterministic.PCT, PCTDepth: 5, PCTSteps: 40}}},
}

// diffSeeds is how many seeds each program runs with under each schedule.
const diffSeeds = 3

// outcome is how a run of a program ended.
type outcome struct {
	rec       *recorder
	completed bool   // every task finished
	stalled   string // the verdict of a run that stopped with tasks parked
	failure   string // any other end: a task's panic, a run timeout
}

// check returns what the run did that the model forbids.
func (o outcome) check(p *program, simulated bool) []string {
	if o.failure != "" {
		return []string{o.failure}
	}
	return newHistory(p, o.rec).check(o.completed, simulated)
}

// spawnTasks spawns the program's tasks on x's objects.
func spawnTasks(ctx simrt.Context, x *objects) []*simrt.Handle[struct{}] {
	hs := make([]*simrt.Handle[struct{}], len(x.p.tasks))
	for ti := range x.p.tasks {
		hs[ti] = simrt.Spawn(ctx.Child(fmt.Sprintf("task%d", ti)), func(ctx simrt.Context) struct{} {
			x.task(ctx, ti)
			return struct{}{}
		})
	}
	return hs
}

// runSim runs p on the simulator configured by cfg. A stall is the
// simulator's own verdict.
func runSim(p *program, cfg deterministic.Config) (out outcome) {
	out.rec = newRecorder(p)
	cfg.Timeout = 3 * time.Hour // past the longest timer a program sets (a Timeout of 1h)
	defer func() {
		if v := recover(); v != nil {
			if err, ok := v.(error); ok && errors.Is(err, deterministic.ErrStalled) {
				out.stalled = err.Error()
				return
			}
			out.failure = fmt.Sprintf("the run ended with a panic: %v", v)
		}
	}()
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		x := newObjects(p, out.rec)
		for _, h := range spawnTasks(ctx, x) {
			h.Await(ctx)
		}
		x.drain()
		out.completed = true
	})
	return out
}

// runRealtime runs p on the production runtime. Its root watches the
// recorder: the run has stalled once no op has begun or ended for
// quietFor while every unfinished task is parked in an op the model says
// cannot proceed, or for stallFor whatever the model says (then the
// check reports the parked ops that could have proceeded).
func runRealtime(t testing.TB, p *program) (out outcome) {
	out.rec = newRecorder(p)
	rec := out.rec
	cfg := realtime.Config{Timeout: time.Minute, StorageDirectory: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	defer func() {
		if v := recover(); v != nil {
			out.failure = fmt.Sprintf("the run ended with a panic: %v", v)
		}
	}()
	_, err := realtime.New(cfg).Start(func(ctx simrt.Context) {
		x := newObjects(p, rec)
		hs := spawnTasks(ctx, x)
		var last uint64
		lastChange := ctx.Now()
		for {
			ctx.Sleep(time.Millisecond)
			rec.mu.Lock()
			all := !slicesContains(rec.finished, false)
			clock := rec.clock
			var enabled []string
			if !all && clock == last {
				enabled = newHistory(p, rec).enabledParked()
			}
			rec.mu.Unlock()
			if all {
				for _, h := range hs {
					h.Await(ctx)
				}
				x.drain()
				out.completed = true
				return
			}
			if clock != last {
				last, lastChange = clock, ctx.Now()
				continue
			}
			quiet := ctx.Now().Sub(lastChange)
			if (len(enabled) == 0 && quiet >= quietFor) || quiet >= stallFor {
				rec.mu.Lock()
				rec.frozen = true
				rec.mu.Unlock()
				out.stalled = fmt.Sprintf("no progress for %v", quiet)
				return
			}
		}
	})
	if err != nil {
		out.failure = fmt.Sprintf("Start: %v", err)
	}
	return out
}

func slicesContains(s []bool, v bool) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// report formats a failed run for the test log.
func report(p *program, where string, o outcome, errs []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d departures from the model\nprogram: %v", where, len(errs), p)
	for _, e := range errs {
		b.WriteString("  - " + e + "\n")
	}
	if o.stalled != "" {
		b.WriteString("stall verdict:\n" + o.stalled + "\n")
	}
	return b.String()
}

func diffProgramCount() int {
	switch {
	case *diffPrograms > 0:
		return *diffPrograms
	case testing.Short():
		return 100
	}
	return 400
}

// TestDifferential runs random programs under every schedule of the
// simulator, diffSeeds seeds each, and checks every run against the model.
func TestDifferential(t *testing.T) {
	runs, stalls := 0, 0
	for i := range diffProgramCount() {
		p := generate(rngChooser{rand.New(rand.NewPCG(uint64(i), 26))})
		for _, s := range diffSchedules {
			for seed := range uint64(diffSeeds) {
				cfg := s.cfg
				cfg.Seed = seed
				o := runSim(p, cfg)
				runs++
				if o.stalled != "" {
					stalls++
				}
				if errs := o.check(p, true); len(errs) > 0 {
					t.Fatal(report(p, fmt.Sprintf("program %d, schedule %s, seed %d", i, s.name, seed), o, errs))
				}
			}
		}
	}
	t.Logf("%d runs, %d of them legitimately stalled", runs, stalls)
}

// TestDifferentialRealtime runs random programs on the production runtime,
// a third as many as TestDifferential, once each.
func TestDifferentialRealtime(t *testing.T) {
	n := diffProgramCount() / 3
	runs, stalls := 0, 0
	for i := range n {
		p := generate(rngChooser{rand.New(rand.NewPCG(uint64(i), 27))})
		o := runRealtime(t, p)
		runs++
		if o.stalled != "" {
			stalls++
		}
		if errs := o.check(p, false); len(errs) > 0 {
			t.Fatal(report(p, fmt.Sprintf("program %d on the production runtime", i), o, errs))
		}
	}
	t.Logf("%d runs, %d of them legitimately stalled", runs, stalls)
}

// FuzzDifferential lets the fuzzer choose the program (prog, one byte per
// choice), the schedule (sched, a decision.Bytes stream) and
// the scheduler (mode).
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{}, []byte{}, uint8(0))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{0, 0, 0, 0, 0, 0, 0, 1, 255, 0, 128}, uint8(1))
	f.Add([]byte("lost wake-up"), []byte("schedule"), uint8(2))
	f.Fuzz(func(t *testing.T, prog, sched []byte, mode uint8) {
		p := generate(newByteChooser(prog))
		s := diffSchedules[int(mode)%len(diffSchedules)]
		cfg := s.cfg
		d := decision.NewBytes(sched)
		cfg.Seed, cfg.Replay = d.Seed(), d
		o := runSim(p, cfg)
		if errs := o.check(p, true); len(errs) > 0 {
			t.Fatal(report(p, "schedule "+s.name, o, errs))
		}
	})
}
