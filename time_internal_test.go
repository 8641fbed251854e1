package simrt

import (
	"testing"
	"time"

	"github.com/simrt/simrt/internal/core"
)

// countingRuntime counts the timers it is asked for; they never fire.
type countingRuntime struct{ timers int }

func (r *countingRuntime) CurrentTask() *core.Task { return nil }

func (r *countingRuntime) AfterFunc(time.Duration, func()) Timer {
	r.timers++
	return stoppedTimer{}
}

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool { return true }

// A Select re-arms its cases on every wakeup; an After case must still own
// exactly one timer, set the first time it is armed (the Go form of the
// reference's one-alarm-after-repolling rule).
func TestSleepRefreshesOneAlarmAfterRepolling(t *testing.T) {
	rt := &countingRuntime{}
	c := After(rt, 10*time.Millisecond, nil).(*afterCase)
	task := core.NewTask(nil)
	for range 100 {
		w := core.Waiter{Task: task}
		if c.arm(&w) {
			t.Fatal("the case completed before its deadline")
		}
		c.disarm(&w)
	}
	c.release()
	if rt.timers != 1 {
		t.Fatalf("%d timers set over 100 re-arms, want 1", rt.timers)
	}
}
