package realtime_test

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// lockedLog is a log destination written from the runtime's goroutines
// and read by the test's.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStopTimeoutLogsRunningTasks: a Stop whose timeout expires while the
// run goes on (a task that took the stop signal ignores it, and one never
// took it, so Stop would have returned at once without the first) logs
// at WARN the tasks still running, by name, with the call each is blocked
// in and the user's line. Before, nothing was logged and the process kept
// serving.
func TestStopTimeoutLogsRunningTasks(t *testing.T) {
	for _, holder := range []bool{true, false} {
		name := map[bool]string{true: "holder", false: "noholder"}[holder]
		t.Run(name, func(t *testing.T) {
			var out lockedLog
			log := slog.New(slog.NewTextHandler(&out, nil))
			var stopErr error
			stopped := make(chan struct{})
			value, err := realtime.New(realtime.Config{Logger: log}).Start(func(ctx simrt.Context) {
				forever := simrt.NewChan[int](0)
				ready := simrt.NewChan[struct{}](2)
				simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) int {
					ready.Send(ctx, struct{}{}) // blocks through the runtime: its goroutine is labelled
					v, _ := forever.Recv(ctx)   // serves on, ignoring ctx.Stopped()
					return v
				})
				ready.Recv(ctx)
				if holder {
					simrt.Spawn(ctx.Child("holder"), func(ctx simrt.Context) int {
						_ = ctx.Stopped() // taken, never waited on
						ready.Send(ctx, struct{}{})
						ctx.Sleep(time.Hour)
						return 0
					})
					ready.Recv(ctx)
				}
				simrt.Spawn(ctx.Child("stopper"), func(ctx simrt.Context) int {
					stopErr = ctx.Stop(3, 200*time.Millisecond)
					close(stopped)
					return 0
				})
				// The root ignores Stopped() too, until the report is out.
				deadline := ctx.Now().Add(10 * time.Second)
				for !strings.Contains(out.String(), `task still running`) && ctx.Now().Before(deadline) {
					ctx.Sleep(5 * time.Millisecond)
				}
				<-stopped
			})
			if err != nil || value != 3 {
				t.Fatalf("Start = %d, %v; want 3, nil", value, err)
			}
			if holder != (stopErr == simrt.ErrTimeout) {
				t.Errorf("Stop returned %v (a holder: %v)", stopErr, holder)
			}
			got := out.String()
			for _, want := range []string{
				"level=WARN msg=\"realtime: tasks still running after Stop's timeout",
				"value=3 timeout=200ms",
				`msg="realtime: task still running after Stop's timeout" task=server blocked_in=github.com/simrt/simrt.(*Chan[...]).Recv`,
				"TestStopTimeoutLogsRunningTasks.func1.1",
				"stuck_test.go:",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("log lacks %q:\n%s", want, got)
				}
			}
			if holder && !strings.Contains(got, "task=holder") {
				t.Errorf("log lacks the holder:\n%s", got)
			}
		})
	}
}
