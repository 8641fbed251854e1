package core

import (
	"reflect"
	"runtime"
	"strings"
)

// A goroutine that no runtime started (a library's own "go" statement:
// net/rpc's client reader and its server's handlers, net/http's connection
// loops) that uses a task's connection or primitives acts as that task: in
// the simulator it switches the task's coroutine onto itself, corrupting
// the run, and died of a bare "simrt: task aborted" panic when the run
// ended. The simulator's UnwindChecker tells it apart with
// ForeignGoroutine, on the unwind path only (a check on every park would
// cost a stack walk each, about 1-2µs).

// callEntry is the entry PC of Task.Call, which runs a task's function (a
// simulated task's, and the production root's).
var callEntry = reflect.ValueOf((*Task).Call).Pointer()

// ForeignGoroutine returns "" when the calling goroutine runs a task: its
// stack holds a call of Task.Call or of a function whose entry PC is in
// entries (a runtime's own task body). Otherwise it returns the function
// the goroutine was started with ("net/rpc.(*Client).input"), or "a
// goroutine" when the stack does not say. It walks the stack without
// symbolizing it, from the bottom, and names frames only for a foreign
// goroutine; it allocates only then, or for a stack deeper than 64 frames.
func ForeignGoroutine(entries ...uintptr) string {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	stack := pcs[:n]
	if n == len(pcs) { // deeper: the whole stack
		stack = nil
		for skip := 2; ; skip += len(pcs) {
			k := runtime.Callers(skip, pcs[:])
			stack = append(stack, pcs[:k]...)
			if k < len(pcs) {
				break
			}
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		f := runtime.FuncForPC(stack[i] - 1)
		if f == nil {
			continue
		}
		e := f.Entry()
		if e == callEntry {
			return ""
		}
		for _, x := range entries {
			if e == x {
				return ""
			}
		}
	}
	return entryName(append([]uintptr(nil), stack...))
}

// entryName names the function at the bottom of a stack, leaving out the
// Go runtime's.
func entryName(stack []uintptr) string {
	last := "a goroutine"
	frames := runtime.CallersFrames(stack)
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

// ForeignMessage is the panic message of a runtime that found a goroutine
// it did not start, running entry, doing what (a task "was parked or
// unwound", "a blocking call was made outside a task"), and what to do.
func ForeignMessage(what, entry string) string {
	return "simrt: " + what + " by a goroutine that simrt did not start (" + entry + "): " +
		"a plain goroutine (a library's own \"go\" statement, as in net/rpc or net/http) used a connection " +
		"(netconn, a Stream or a Sink) or a primitive of a task's Context, which only the runtime's tasks may use; " +
		"drive such a library from tasks (docs/PORTING.md, \"What does not port\")"
}
