package realtime

import (
	"testing"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// countingWork is an rtapi.Task that counts its runs.
type countingWork struct{ runs int }

func (w *countingWork) Run(rtapi.Plumbing) { w.runs++ }
func (w *countingWork) Done(error)         {}

// TestAbortedBeforeFirstRunNeverRunsWork: a task aborted after its spawn
// but before its goroutine first runs it (the order the conformance suite
// cannot force in parallel) ends aborted without running its function.
func TestAbortedBeforeFirstRunNeverRunsWork(t *testing.T) {
	w := &countingWork{}
	tk := &task{work: w}
	tk.ct.SetBackend(tk)
	tk.ctx.task = tk
	if !tk.ct.Abort() {
		t.Fatal("Abort of a fresh task reported it already aborted")
	}
	if out := tk.call(); out != core.OutcomeAborted { // what run does first on the task's goroutine
		t.Fatalf("call = %v; want OutcomeAborted", out)
	}
	if w.runs != 0 {
		t.Fatalf("the function of a task aborted before it ran ran %d times", w.runs)
	}
}
