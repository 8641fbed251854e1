package deterministic

import (
	"errors"
	"os"
	"os/exec"
	goruntime "runtime"
	"strings"
	"sync"
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

// nativeBlockVerdict runs root under a short watchdog and returns the
// verdict Start panicked with (nil if it did not panic with a Verdict).
func nativeBlockVerdict(t *testing.T, root func(ctx *Context)) (v *Verdict) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("Start returned: the watchdog did not stop the run")
		}
		var ok bool
		if v, ok = r.(*Verdict); !ok {
			t.Fatalf("Start panicked with %T, want *Verdict: %v", r, r)
		}
	}()
	New(Config{Hooks: Hooks{Watchdog: 80 * time.Millisecond}}).Start(root)
	return nil
}

// TestNativeBlockFailsTheRun: a task blocked in a native call (a channel, a
// sync.Mutex, time.Sleep) makes Start panic in the caller's goroutine with
// an ErrNativeBlock verdict naming the task and its own frames (the test's
// line), and the process goes on: the next run works. Before, the watchdog
// panicked on its own goroutine and killed the process.
func TestNativeBlockFailsTheRun(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // lets the abandoned goroutines go (they leave at their next resume's end)
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	cases := []struct {
		name, frame string
		block       func()
	}{
		{"chan", "watchdog_test.go", func() { <-release }},
		{"mutex", "sync.(*Mutex).Lock", func() { mu.Lock() }},
		{"sleep", "time.Sleep", func() { time.Sleep(time.Hour) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := nativeBlockVerdict(t, func(ctx *Context) {
				h := simrt.Spawn(ctx.Child("stuck_"+c.name), func(ctx simrt.Context) struct{} {
					ctx.Sleep(time.Millisecond)
					c.block()
					ctx.Sleep(time.Millisecond)
					return struct{}{}
				})
				h.Await(ctx)
			})
			if !errors.Is(v, ErrNativeBlock) {
				t.Fatalf("verdict %v, want ErrNativeBlock", v.Err)
			}
			if len(v.Tasks) != 1 || v.Tasks[0].Name != "stuck_"+c.name || !v.Tasks[0].Running {
				t.Errorf("verdict tasks %+v, want the running task stuck_%s", v.Tasks, c.name)
			}
			msg := v.Error()
			for _, want := range []string{`task "stuck_` + c.name + `"`, "native Go call", "simrt primitives", c.frame,
				"TestNativeBlockFailsTheRun"} {
				if !strings.Contains(msg, want) {
					t.Errorf("verdict lacks %q:\n%s", want, msg)
				}
			}
			for _, machinery := range []string{"runtime.gopark", "iter.", "(*coroutine).loop", "internal/core", "simrt.Spawn"} {
				if strings.Contains(v.Stack, machinery) {
					t.Errorf("the stack shows %q, not the user's frames:\n%s", machinery, v.Stack)
				}
			}
			if v.Time.Before(time.Unix(0, 0).Add(time.Millisecond)) {
				t.Errorf("verdict time %v, want at least 1ms (the stuck resume's)", v.Time)
			}
		})
	}
	// The process goes on, and so do runs.
	ran := false
	New(Config{Hooks: Hooks{Watchdog: 80 * time.Millisecond}}).Start(func(ctx *Context) {
		ctx.Sleep(time.Second)
		ran = true
	})
	if !ran {
		t.Error("a run after the abandoned ones did not run")
	}
}

// TestWatchedRunGoexit: with the watchdog on, the run executes on its own
// goroutine; a runtime.Goexit in a task (t.FailNow) still ends the
// caller's goroutine, as it did when the run was on it.
func TestWatchedRunGoexit(t *testing.T) {
	after := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		New(Config{Hooks: Hooks{Watchdog: time.Minute}}).Start(func(ctx *Context) {
			ctx.Sleep(time.Millisecond)
			goruntime.Goexit()
		})
		after = true
	}()
	<-done
	if after {
		t.Error("Start returned after a task's runtime.Goexit")
	}
}
