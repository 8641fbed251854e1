package deterministic

import (
	"github.com/simrt/simrt/internal/core"
	"reflect"
	goruntime "runtime"
	"strings"
)

// A goroutine that simrt did not start (a library's own "go" statement:
// net/rpc's client reader and its server's handlers, net/http's connection
// loops) that reaches a task's park, through a connection or a primitive
// of the task's Context, switches the task's coroutine onto itself: the
// executor takes the task for parked while the task's own goroutine runs
// on. The run is then corrupt, and the first sign was a bare "simrt: task
// aborted" panic on that goroutine when the run ended, or "blocking call
// made outside a task". A task checks, when it is about to unwind an abort
// (a rare path: a check on every park would cost a stack walk each, about
// 1µs), that it runs on a task's goroutine, and panics with what happened
// otherwise.

// loopEntry is the entry PC of coroutine.loop, the function at the bottom
// of the goroutine of every task.
var loopEntry = reflect.ValueOf((*coroutine).loop).Pointer()

// foreignEntry returns "" when the calling goroutine runs a task of a
// simulator (coroutine.loop is on its stack), and otherwise the function
// the goroutine was started with ("net/rpc.(*Client).input"), or "a
// goroutine" when the stack does not say. It walks the stack without
// symbolizing it, from the bottom, where coroutine.loop sits, and names
// frames only for a foreign goroutine. It costs about 1µs, and allocates
// only for a foreign goroutine or a stack deeper than 64 frames.
func foreignEntry() string {
	var pcs [64]uintptr
	n := goruntime.Callers(2, pcs[:])
	stack := pcs[:n]
	if n == len(pcs) { // deeper: the whole stack
		stack = nil
		for skip := 2; ; skip += len(pcs) {
			k := goruntime.Callers(skip, pcs[:])
			stack = append(stack, pcs[:k]...)
			if k < len(pcs) {
				break
			}
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if f := goruntime.FuncForPC(stack[i] - 1); f != nil && f.Entry() == loopEntry {
			return ""
		}
	}
	return entryName(append([]uintptr(nil), stack...))
}

// entryName names the function at the bottom of a stack, leaving out the
// runtime's.
func entryName(stack []uintptr) string {
	last := "a goroutine"
	frames := goruntime.CallersFrames(stack)
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			last = f.Function
		}
		if !more {
			return last
		}
	}
}

var _ core.UnwindChecker = (*task)(nil)

// CheckUnwind implements core.UnwindChecker: it panics, naming t and the
// goroutine, unless the calling goroutine runs a task.
func (t *task) CheckUnwind() {
	if entry := foreignEntry(); entry != "" {
		panic(foreignMessage(t.DescribeTask()+" was parked or unwound", entry))
	}
}

// foreignMessage says that what happened was done by the goroutine that
// runs entry, which simrt did not start, and what to do.
func foreignMessage(what, entry string) string {
	return "simrt: " + what + " by a goroutine that simrt did not start (" + entry + "): " +
		"a plain goroutine (a library's own \"go\" statement, as in net/rpc or net/http) used a connection " +
		"(netconn, a Stream or a Sink) or a primitive of a task's Context, which only the runtime's tasks may use; " +
		"run such a library in realtime only, or drive it from tasks (docs/PORTING.md, \"What does not port\")"
}
