package deterministic

import (
	"reflect"

	"github.com/simrt/simrt/internal/core"
)

// A goroutine that simrt did not start that reaches a task's park switches
// the task's coroutine onto itself: the executor takes the task for parked
// while the task's own goroutine runs on, and the run is corrupt (see
// core.ForeignGoroutine). A task checks, when it is about to unwind an
// abort, that it runs on a task's goroutine.

// loopEntry is the entry PC of coroutine.loop, the function at the bottom
// of the goroutine of every task.
var loopEntry = reflect.ValueOf((*coroutine).loop).Pointer()

var _ core.UnwindChecker = (*task)(nil)

// CheckUnwind implements core.UnwindChecker: it panics, naming t and the
// goroutine, unless the calling goroutine runs a task.
func (t *task) CheckUnwind() {
	if entry := core.ForeignGoroutine(loopEntry); entry != "" {
		panic(core.ForeignMessage(t.DescribeTask()+" was parked or unwound", entry))
	}
}
