package deterministic

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
)

// pingPongAtTheEnd runs pingPong's two tasks where the clock is stuck: 5 ms
// before the end of simulated time, the root sleeping past it. Every
// iteration advances the clock by Cycle until it reaches the end; from
// then on no resume makes progress, under every scheduler.
func pingPongAtTheEnd(ctx *Context) {
	ping, pong := simrt.NewChan[int](0), simrt.NewChan[int](0)
	simrt.Spawn(ctx.Child("pinger"), func(ctx simrt.Context) struct{} {
		for i := 0; ; i++ {
			ping.Send(ctx, i)
			pong.Recv(ctx)
		}
	})
	simrt.Spawn(ctx.Child("ponger"), func(ctx simrt.Context) struct{} {
		for {
			v, _ := ping.Recv(ctx)
			pong.Send(ctx, v)
		}
	})
	ctx.Sleep(time.Hour)
}

// endOfTime is a StartTime 5 ms before the end of simulated time.
var endOfTime = time.Unix(0, never).Add(-5 * time.Millisecond)

// livelockVerdict runs root under cfg and returns its livelock verdict;
// it fails t unless the run ends with one.
func livelockVerdict(t *testing.T, cfg Config, root func(*Context)) (v *Verdict) {
	t.Helper()
	mustVerdict(t, ErrLivelock, func() {
		defer func() {
			r := recover()
			if err, ok := r.(error); ok {
				errors.As(err, &v)
			}
			panic(r)
		}()
		New(cfg).Start(root)
	})
	return v
}

// TestLivelockVerdictPerScheduler: under every scheduler and stream, two
// tasks that keep handing each other a value while simulated time stays
// put end the run with a livelock verdict after LivelockSteps resumes,
// naming both and what they parked on. Neither Timeout (no simulated time
// passes) nor the watchdog (every resume returns) would end it.
func TestLivelockVerdictPerScheduler(t *testing.T) {
	rec := &decision.Stream{}
	base := Config{Seed: 5, StartTime: endOfTime, LivelockSteps: 3000, Timeout: time.Hour}
	for _, tc := range []struct {
		name string
		cfg  func(Config) Config
	}{
		{"uniform", func(c Config) Config { return c }},
		{"uniform/noyield", func(c Config) Config { c.Scheduling.YieldProbability = NoYield; return c }},
		{"uniform/always", func(c Config) Config { c.Scheduling.YieldProbability = 1; return c }},
		{"pct", func(c Config) Config { c.Scheduling.Scheduler = PCT; return c }},
		{"pct/d=1", func(c Config) Config { c.Scheduling.Scheduler, c.Scheduling.PCTDepth = PCT, 1; return c }},
		{"record", func(c Config) Config { c.Scheduling.Scheduler, c.Hooks.Record = PCT, rec; return c }},
		{"replay", func(c Config) Config { c.Scheduling.Scheduler, c.Seed, c.Replay = PCT, 77, rec; return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := livelockVerdict(t, tc.cfg(base), pingPongAtTheEnd)
			if v.Steps != 3000 || v.Window != 3000 || !v.Time.Equal(time.Unix(0, never)) {
				t.Errorf("verdict after %d steps (window %d) at %v; want 3000, 3000, the end of time",
					v.Steps, v.Window, v.Time)
			}
			if len(v.Spinning) != 2 || v.Spinning[0].Resumes+v.Spinning[1].Resumes != 3000 {
				t.Fatalf("spinning tasks %+v; want pinger and ponger, 3000 resumes between them", v.Spinning)
			}
			names := v.Spinning[0].Name + " " + v.Spinning[1].Name
			if names != "pinger ponger" && names != "ponger pinger" {
				t.Errorf("spinning tasks %q; want pinger and ponger", names)
			}
			doing := strings.Join(append(v.Spinning[0].Doing, v.Spinning[1].Doing...), "; ")
			if !strings.Contains(doing, "unbuffered chan made at livelock_test.go:18") {
				t.Errorf("the tasks' resumes ended in %q; want waits on the ping channel among them", doing)
			}
			msg := v.Error()
			for _, want := range []string{
				"runtime livelock: 3000 resumes without simulated time advancing or a task ending (Config.LivelockSteps)",
				"the tasks resumed most in the last 3000 resumes:",
				`task "pinger" (#1): resumed `, `task "ponger" (#2): resumed `,
				"3 live tasks:\n  task <root> (#0) parked",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("verdict lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

// TestLivelockReplayedVerdict: a recorded stream replays to the same
// verdict, under another seed.
func TestLivelockReplayedVerdict(t *testing.T) {
	rec := &decision.Stream{}
	cfg := Config{Seed: 3, StartTime: endOfTime, LivelockSteps: 500, Scheduling: Scheduling{Scheduler: PCT}, Hooks: Hooks{Record: rec}}
	want := livelockVerdict(t, cfg, pingPongAtTheEnd).Error()
	cfg.Seed, cfg.Hooks.Record, cfg.Replay = 9, nil, rec
	if got := livelockVerdict(t, cfg, pingPongAtTheEnd).Error(); got != want {
		t.Errorf("replayed verdict:\n%s\nrecorded:\n%s", got, want)
	}
}

// spawnChain spawns a task that spawns a task, and so on, each awaiting
// its child: with every spawn running the child first, one iteration
// never ends.
func spawnChain(ctx simrt.Context) struct{} {
	simrt.Spawn(ctx.Child("link"), spawnChain).Await(ctx)
	return struct{}{}
}

// TestLivelockSpawnChain: a run that never ends an iteration at an
// ordinary time (spawned tasks running first, each spawning the next) is
// a livelock too; the verdict comes at the start time.
func TestLivelockSpawnChain(t *testing.T) {
	cfg := Config{Seed: 1, Scheduling: Scheduling{YieldProbability: 1}, LivelockSteps: 300}
	v := livelockVerdict(t, cfg, func(ctx *Context) { spawnChain(ctx) })
	if !v.Time.Equal(time.Unix(0, 0)) || v.Steps != 300 || len(v.Spinning) != livelockTop {
		t.Errorf("verdict at %v after %d steps, %d spinning tasks; want the epoch, 300, %d",
			v.Time, v.Steps, len(v.Spinning), livelockTop)
	}
	// Each link runs once: its child runs first, and it waits for the
	// next iteration, which never comes.
	for i, s := range v.Spinning {
		if s.ID != uint64(i) || s.Resumes != 1 || len(s.Doing) != 1 || s.Doing[0] != "yielded (ready to run again)" {
			t.Errorf("spinning task %d: %+v; want task #%[1]d, one resume ending in a yield", i, s)
		}
	}
}

// TestLivelockGuardQuietWithProgress: the guard counts only resumes
// without progress. Ping-pong at an ordinary time advances the clock every
// iteration, and tasks that end are progress, even at one instant: with a
// limit of 10 neither stops the run.
func TestLivelockGuardQuietWithProgress(t *testing.T) {
	for _, s := range []Scheduler{Uniform, PCT} {
		New(Config{Seed: 2, Scheduling: Scheduling{Scheduler: s}, LivelockSteps: 10}).Start(func(ctx *Context) {
			simrt.Spawn(ctx, func(ctx simrt.Context) struct{} { pingPong(From(ctx)); return struct{}{} })
			for range 100 {
				simrt.Spawn(ctx, func(simrt.Context) struct{} { return struct{}{} })
			}
			ctx.Sleep(time.Second)
		})
	}
}

// TestLivelockGuardOff: a negative LivelockSteps turns the guard off; the
// run goes past defaultLivelockSteps (stopped here by the test's hook).
func TestLivelockGuardOff(t *testing.T) {
	if testing.Short() {
		t.Skip("a million resumes")
	}
	type stop struct{}
	resumes := 0
	cfg := Config{StartTime: endOfTime, LivelockSteps: -1, Hooks: Hooks{AfterResume: func(string, time.Time) {
		if resumes++; resumes > defaultLivelockSteps+10 {
			panic(stop{})
		}
	}}}
	defer func() {
		if r := recover(); r != (stop{}) {
			t.Fatalf("panic %v; want the test's stop after %d resumes", r, defaultLivelockSteps+10)
		}
	}()
	New(cfg).Start(pingPongAtTheEnd)
}

// TestLivelockDefault: a zero LivelockSteps means defaultLivelockSteps.
func TestLivelockDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("a million resumes")
	}
	v := livelockVerdict(t, Config{StartTime: endOfTime}, pingPongAtTheEnd)
	if v.Steps != defaultLivelockSteps || v.Window != livelockWindow {
		t.Errorf("verdict after %d steps, window %d; want %d, %d", v.Steps, v.Window, defaultLivelockSteps, livelockWindow)
	}
	if len(v.Spinning) != 2 || v.Spinning[0].Resumes+v.Spinning[1].Resumes != livelockWindow {
		t.Errorf("spinning tasks %+v; want two, %d resumes between them", v.Spinning, livelockWindow)
	}
}
