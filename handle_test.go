package simrt

import (
	"testing"

	"github.com/simrt/simrt/rtapi"
)

// deferredSpawner keeps the task it is given so that the test can run the
// task's function and report its outcome as two separate steps, the way a
// runtime does with its bookkeeping in between.
type deferredSpawner struct {
	Context // only SpawnTask is used
	task    rtapi.Task
}

func (s *deferredSpawner) SpawnTask(t rtapi.Task) rtapi.Aborter {
	s.task = t
	return rtapi.NoAbort{}
}

// TestSpawnCompletesWhenRuntimeReports pins that a task handle completes
// through SpawnTask's done callback, after the runtime's bookkeeping, and
// not as soon as the task's function returns.
func TestSpawnCompletesWhenRuntimeReports(t *testing.T) {
	s := &deferredSpawner{}
	h := Spawn[int](s, func(Context) int { return 7 })
	s.task.Run(s)
	if h.Done() {
		t.Fatal("handle completed when the function returned, before the runtime reported the outcome")
	}
	s.task.Done(nil)
	if !h.Done() || h.v != 7 || h.err != nil {
		t.Fatalf("after done(nil): Done=%v v=%v err=%v; want true 7 nil", h.Done(), h.v, h.err)
	}
}
