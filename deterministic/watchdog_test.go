package deterministic

import (
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/pool"
)

// TestWatchdogNamesStuckTask runs, in a child process, a simulation whose
// task blocks on a native channel, and checks that the watchdog stops it
// with a message naming the task and the remedy. In the pooled case the
// task runs on a coroutine an earlier run left in a Coroutines pool.
func TestWatchdogNamesStuckTask(t *testing.T) {
	switch mode := os.Getenv("SIMRT_WATCHDOG_CHILD"); mode {
	case "plain", "pooled":
		cfg := Config{Hooks: Hooks{Watchdog: 200 * time.Millisecond}}
		if mode == "pooled" {
			cfg.Hooks.Coroutines = &pool.Coroutines{}
			New(cfg).Start(func(ctx *Context) { spawnMany(ctx) })
		}
		New(cfg).Start(func(ctx *Context) {
			h := simrt.Spawn(ctx.Child("stuck_worker"), func(ctx simrt.Context) struct{} {
				<-make(chan struct{}) // a native block: the bug the watchdog reports
				return struct{}{}
			})
			h.Await(ctx)
		})
		return
	}
	for _, mode := range []string{"plain", "pooled"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogNamesStuckTask$")
		cmd.Env = append(os.Environ(), "SIMRT_WATCHDOG_CHILD="+mode)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("%s: child exited cleanly:\n%s", mode, out)
		}
		for _, want := range []string{`task "stuck_worker"`, "native Go call", "simrt primitives"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%s: watchdog output lacks %q:\n%.2000s", mode, want, out)
			}
		}
	}
}

// TestWatchdogSparesBusyTask: a task that computes for longer than the
// watchdog's limit without parking is slow, not stuck; the run goes on.
func TestWatchdogSparesBusyTask(t *testing.T) {
	New(Config{Hooks: Hooks{Watchdog: 50 * time.Millisecond}}).Start(func(ctx *Context) {
		end := time.Now().Add(300 * time.Millisecond) // wall clock: the test is about real time
		n := 0
		for time.Now().Before(end) {
			n++
		}
		ctx.Sleep(time.Second)
	})
}

// TestWatchdogIgnoresOtherSimulations runs, in a child process, two
// simulations side by side, as simtest sweeps do: one waits in Pace on real
// work (its task's goroutine blocked in a channel receive) while the other
// computes for many times its watchdog's limit. The computing one's
// watchdog must look only at its own tasks, find them computing, and let
// both runs finish.
func TestWatchdogIgnoresOtherSimulations(t *testing.T) {
	if os.Getenv("SIMRT_WATCHDOG_CHILD") == "parallel" {
		pacing, release := make(chan struct{}), make(chan struct{})
		paced := make(chan int, 1)
		go func() {
			New(Config{Hooks: Hooks{Watchdog: 50 * time.Millisecond}}).Start(func(ctx *Context) {
				paced <- Pace(ctx, 0, func() int {
					close(pacing)
					<-release // real work that outlasts the other run's watchdog
					return 7
				})
			})
		}()
		<-pacing
		New(Config{Hooks: Hooks{Watchdog: 50 * time.Millisecond}}).Start(func(ctx *Context) {
			end := time.Now().Add(500 * time.Millisecond) // wall clock: ten watchdog spans of computing
			for time.Now().Before(end) {
			}
		})
		close(release)
		if v := <-paced; v != 7 {
			panic("paced run returned the wrong value")
		}
		os.Stdout.WriteString("both runs finished\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogIgnoresOtherSimulations$")
	cmd.Env = append(os.Environ(), "SIMRT_WATCHDOG_CHILD=parallel")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "both runs finished") {
		t.Fatalf("child failed (%v): a watchdog stopped a run for another simulation's task:\n%.3000s", err, out)
	}
}

// TestWatchdogSparesGoroutineOfTask: a native goroutine a task starts
// inherits the task's profiler labels, but it is not the task; blocked
// while the task computes past the limit, it stops nothing.
func TestWatchdogSparesGoroutineOfTask(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	New(Config{Hooks: Hooks{Watchdog: 50 * time.Millisecond}}).Start(func(ctx *Context) {
		started := make(chan struct{})
		go func() { // a native goroutine by design: what the watchdog must tell apart
			close(started)
			<-release
		}()
		<-started
		end := time.Now().Add(300 * time.Millisecond) // wall clock: the test is about real time
		for time.Now().Before(end) {
		}
	})
}

// TestWatchdogStartsLazily: a run shorter than the watchdog's first look
// (a quarter of its limit) starts no watchdog goroutine, and one that lasts
// longer has it watching from then on, and stops it when the run ends.
func TestWatchdogStartsLazily(t *testing.T) {
	watchdogs := func() int {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:goruntime.Stack(buf, true)])
		return strings.Count(stacks, "deterministic.(*runtime).startWatchdog") +
			strings.Count(stacks, "deterministic.(*runtime).watch(")
	}
	New(Config{Hooks: Hooks{Watchdog: time.Hour}}).Start(func(ctx *Context) {
		if n := watchdogs(); n != 0 {
			t.Errorf("a run younger than its watchdog's first look has %d watchdog goroutine(s)", n)
		}
	})
	New(Config{Hooks: Hooks{Watchdog: 400 * time.Millisecond}}).Start(func(ctx *Context) {
		// Compute (never block: that is what the watchdog reports) until
		// the first look, due 100 ms in.
		deadline := time.Now().Add(5 * time.Second) // wall clock: the test is about real time
		for watchdogs() == 0 && time.Now().Before(deadline) {
		}
		if watchdogs() == 0 {
			t.Error("no watchdog goroutine 5 s into a run whose watchdog looks every 100 ms")
		}
	})
	if n := watchdogs(); n != 0 {
		t.Errorf("%d watchdog goroutine(s) left after the run ended", n)
	}
}
