// Package simrt is the interface a distributed system is written against,
// once, to run both inside a deterministic simulator (package
// deterministic) and in production (package realtime).
//
// System code takes a Context and uses only what it offers: tasks (Spawn,
// Handle), time (Now, Sleep), randomness (Rand, and the Context as an
// io.Reader), the network (Bind, Dial), storage (Open, Remove, Scan), DNS,
// metrics, and shutdown (Stop, Stopped). Tasks block only through the
// primitives of this package, which are written once for both runtimes:
// Chan (unbuffered, bounded or unbounded), Oneshot, Mutex, RWMutex,
// WaitGroup, Once, Signal, Ticker, Select, After, Timeout and Reschedule;
// GoContext gives code that takes a context.Context one tied to the task.
// docs/PORTING.md maps Go's go, chan, select, sync, time, context, net, os
// and rand to them.
//
// The smallest use, in a test:
//
//	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
//		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) time.Duration {
//			start := ctx.Now()
//			ctx.Sleep(time.Second) // simulated: returns at once in real time
//			return ctx.Now().Sub(start)
//		})
//		slept, err := h.Await(ctx)
//		fmt.Println(slept, err) // 1s <nil>
//	})
//
// # Tasks and supervision
//
// Spawn starts a task below a context. Every spawn gets its own node in the
// supervision tree: when a task ends, for any reason, every task it spawned
// is aborted, and aborting a task aborts everything below it. Aborting
// unwinds the task's stack, so its deferred calls run; a task being unwound
// cannot block again. Tasks spawned from separate Child contexts are
// independent of each other.
//
// # Blocking
//
// A primitive parks the calling task (the simulator switches to another
// task; production blocks the goroutine) until another task wakes it. Every
// blocking call takes the task's Context as its ctx (the parameter's type,
// Caller, is the part of a Context the primitives use). Select
// waits for the first of several cases; when several are ready it takes one
// at random, which in the simulator comes from the seeded run, so a seed
// gives the same choice every time (SelectBiased takes the earliest).
// Timeout(ctx, d, f) runs f and unwinds it if it is still parked after d.
//
// The net.Conn adapter is in package network/netconn.
//
// # Errors
//
// Conditions are sentinel errors (ErrClosed, ErrTimeout, ...) or typed
// errors that match them with errors.Is and errors.As. Programmer misuse
// panics with a message naming the function.
package simrt
