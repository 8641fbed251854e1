// Package realtime is the production runtime: the same simrt.Context the
// simulator gives, backed by goroutines, the wall clock, crypto/rand, the
// system resolver, TCP and files. Code tested under package deterministic
// ships unchanged on it.
//
// The smallest use:
//
//	func main() {
//		realtime.Main(realtime.Config{}, func(ctx simrt.Context) error {
//			stopped := ctx.Stopped() // taken before a signal can call Stop
//			realtime.StopOnSignal(ctx, 10*time.Second)
//			server := simrt.Spawn(ctx.Child("server"), serve) // the function the simulation tests call
//			stopped.Wait(ctx) // SIGINT or SIGTERM: stop serving
//			server.Abort()
//			return nil
//		})
//	}
//
// The root must return for the process to stop: a root (or a task) that
// never waits on ctx.Stopped() keeps the process serving after SIGTERM.
// The runtime says so: once the first Stop's timeout has expired with the
// run still going, it logs to Config.Logger, at WARN, the tasks still
// running, each with the call it is blocked in and its stack (see
// Context.Stop).
//
// Main exits with the Stop value (128 plus the signal's number after a
// signal StopOnSignal caught), or 1 on an error; Runner.Start returns them
// instead.
//
// # Tasks
//
// Every task is a goroutine. The blocking primitives of package simrt
// (Chan, Mutex, Select, Timeout, Handle.Await, ...) park a task by blocking
// its goroutine; they are the same code the simulator runs. Tasks form the
// same supervision tree: when a task ends, every task below it is aborted,
// and an aborted task unwinds (its deferred calls run) at its next park.
// A task blocked in real I/O (a listener, a connection, whoever opened
// it; a Dial; a DNS lookup) is unblocked when it is aborted or its Timeout
// expires: the runtime shuts the half down or cancels the call. Each task must block only
// through the Context it was given; see Context.
//
// # Shutdown
//
// When the root returns or panics, admission of new tasks closes, the whole
// tree is aborted, every open listener and connection is closed, and Start
// returns only once every task goroutine has ended. Without
// Config.CatchPanics, the first task panic aborts the root and is re-raised
// from Start after that shutdown; so is a run timeout (Config.Timeout,
// ErrRunTimeout). For graceful shutdown, tasks wait on
// ctx.Stopped() and someone calls ctx.Stop; StopOnSignal wires SIGINT and
// SIGTERM to Stop.
//
// # Differences from the simulator
//
// Time is the wall clock and randomness is crypto/rand, so runs do not
// repeat. A strategy runs work on a bounded pool of goroutines. Several
// tasks run at once, so shared state needs the simrt primitives (or
// sync) exactly as the race detector would demand in any Go program.
//
// # Observability
//
// Metrics have the simulator's names (runtime_tasks_spawned_total,
// runtime_tasks_running, ...). Config.MetricsAddr serves them, with process
// and Go runtime metrics, on GET /metrics. Context.Logger returns an slog
// logger whose records carry the task's name.
package realtime
