package deterministic

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// TestWatchdogNamesStuckTask runs, in a child process, a simulation whose
// task blocks on a native channel, and checks that the watchdog stops it
// with a message naming the task and the remedy.
func TestWatchdogNamesStuckTask(t *testing.T) {
	if os.Getenv("SIMRT_WATCHDOG_CHILD") == "1" {
		New(Config{Watchdog: 200 * time.Millisecond}).Start(func(ctx *Context) {
			h := simrt.Spawn(ctx.Child("stuck_worker"), func(ctx simrt.Context) struct{} {
				<-make(chan struct{}) // a native block: the bug the watchdog reports
				return struct{}{}
			})
			h.Await(ctx)
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogNamesStuckTask$")
	cmd.Env = append(os.Environ(), "SIMRT_WATCHDOG_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("child exited cleanly:\n%s", out)
	}
	for _, want := range []string{`task "stuck_worker"`, "native Go call", "simrt primitives"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("watchdog output lacks %q:\n%.2000s", want, out)
		}
	}
}

// TestWatchdogSparesBusyTask: a task that computes for longer than the
// watchdog's limit without parking is slow, not stuck; the run goes on.
func TestWatchdogSparesBusyTask(t *testing.T) {
	New(Config{Watchdog: 50 * time.Millisecond}).Start(func(ctx *Context) {
		end := time.Now().Add(300 * time.Millisecond) // wall clock: the test is about real time
		n := 0
		for time.Now().Before(end) {
			n++
		}
		ctx.Sleep(time.Second)
	})
}
