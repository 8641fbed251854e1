package core

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Lock guards the state of one blocking primitive. Tasks of the production
// runtime run in parallel, and Lock is then a sync.Mutex. The simulator runs
// one task at a time and orders them by coroutine switches, so a primitive
// needs no lock there: once a simulated task has waited on it (Bind), Lock
// and Unlock cost nothing.
//
// A primitive belongs to one runtime. Once a task of a sequential runtime
// has entered or waited on it, Enter and Bind panic when a task of another
// runtime (a second simulator, or the production runtime) reaches it, with
// a message naming the primitive ("simrt: Chan used from a second runtime;
// ..."). The operations that name no task (Unlock, a TrySend, a Close, a
// Fire) are not checked.
type Lock struct {
	mu sync.Mutex
	// bound is the RuntimeID of the sequential runtime whose task first
	// waited on the primitive (Bind), 0 until then; from then on Lock and
	// Unlock do nothing. It is written once, by that task while it holds
	// mu; the production runtime only ever reads it.
	bound RuntimeID
	// owner is a simulated task that entered the primitive (see Enter),
	// whose scheduler the primitive's task-less operations reach. Never
	// written in the production runtime.
	owner *Task
}

// RuntimeID identifies one instance of a sequential runtime to the
// primitives its tasks use (see Lock). 0 is no runtime: the production
// runtime's tasks have it.
type RuntimeID uint32

// maxRuntimeID is the largest RuntimeID that fits above the task flags.
const maxRuntimeID = RuntimeID(^uint32(0) >> flagsRuntimeShift)

// runtimeIDs hands out RuntimeIDs. An ID only tells two runtimes apart: no
// run ever observes its value, so determinism does not depend on it.
var runtimeIDs atomic.Uint32

// NewRuntimeID returns an ID no other runtime of the process has (until
// 2^29 runtimes have been made, when the IDs wrap around).
func NewRuntimeID() RuntimeID {
	for {
		if id := RuntimeID(runtimeIDs.Add(1)) & maxRuntimeID; id != 0 {
			return id
		}
	}
}

// Lock locks l.
func (l *Lock) Lock() {
	if l.bound == 0 {
		l.mu.Lock()
	}
}

// Unlock unlocks l.
func (l *Lock) Unlock() {
	if l.bound == 0 {
		l.mu.Unlock()
	}
}

// Bind is called with l held by task t, which is about to wait on the
// primitive. If t's runtime runs its tasks one at a time, l stops locking
// from here on (it stays held-and-released consistently: the caller's
// Unlock becomes a no-op too). It panics if l is bound to another runtime
// than t's.
func (l *Lock) Bind(t *Task) {
	if b := l.bound; b == 0 {
		if id := t.runtimeID(); id != 0 {
			l.bound = id
			l.mu.Unlock()
		}
	} else if b != t.runtimeID() {
		panic(secondRuntime())
	}
}

// Enter marks a scheduling point of task t on the primitive guarded by l:
// l remembers a simulated task that used it, so that the primitive's
// operations that name no task (Unlock, TrySend, Close, Fire) can reach
// the simulator's scheduler too (see Point). It panics if a task of
// another runtime entered l before. Call it without l held.
func (l *Lock) Enter(t *Task) {
	if o := l.owner; o == nil {
		if t.flags.Load()&flagSequential != 0 {
			l.owner = t // written only by tasks of a sequential runtime
		}
	} else if o.runtimeID() != t.runtimeID() {
		panic(secondRuntime())
	}
	t.Point()
}

// secondRuntime returns the message of the panic of a primitive used from
// a second runtime, naming the primitive from the stack (the first
// exported type of package simrt among the callers), which costs nothing
// until it panics.
func secondRuntime() string {
	const tail = " used from a second runtime; a primitive belongs to one runtime"
	if kind := primitiveKind(); kind != "" {
		return "simrt: " + kind + tail
	}
	return "simrt: a primitive" + tail
}

// primitiveKind returns the exported simrt type whose method is the
// nearest caller, such as "Chan", or "" if there is none.
func primitiveKind() string {
	const root = "github.com/simrt/simrt."
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if name, ok := strings.CutPrefix(f.Function, root); ok {
			if recv, ok := strings.CutPrefix(name, "(*"); ok {
				if i := strings.IndexAny(recv, "[)"); i > 0 && recv[0] >= 'A' && recv[0] <= 'Z' {
					return recv[:i]
				}
			}
		}
		if !more {
			return ""
		}
	}
}
