// Package deterministic is simrt's simulator: it runs a program written
// against simrt.Context one task at a time, in an order shuffled by a
// seeded generator, on a simulated clock that jumps over idle time, with an
// in-memory network and storage whose faults are drawn from the same
// generator. Same seed, same program: same run, byte for byte, which the
// Auditor's fingerprint proves.
//
// The smallest use:
//
//	deterministic.Seeded(7).Start(func(ctx *deterministic.Context) {
//		ctx.Sleep(time.Hour) // returns at once: nothing else is runnable
//		fmt.Println(ctx.Now(), ctx.Auditor().State())
//	})
//
// # The executor
//
// Each iteration checks the deadline (Config.Timeout, "runtime timeout"),
// takes every ready task, shuffles them when there are several, and resumes
// each once. It stops as soon as the root returns. Then the clock advances
// one Config.Cycle; when nothing is ready it jumps to the next timer; with
// nothing ready and no timer, the run has deadlocked and Start panics with
// "runtime stalled". Both verdicts are a *Verdict (errors.Is ErrStalled or
// ErrRunTimeout) whose text lists every live task, what each parked one
// waits on (a channel by its creation site, a mutex, a sleep until T, a
// Recv or Accept with its addresses, an Await on a named task, a Select's
// cases) and since when. When the root returns, every remaining task is unwound
// in id order (their deferred calls run) and the storage is crashed: writes
// that were never synced are lost unless the fault configuration retains
// them.
//
// The clock ends at 2262-04-11 (math.MaxInt64 ns after the Unix epoch):
// sums of times and durations saturate there instead of wrapping, and
// nothing is due at the end, so Sleep(math.MaxInt64) or a timeout that long
// never fires (a run left with only such sleepers has stalled).
//
// # Crashes and recovery
//
// StartAndRecover returns a Checkpoint; FromCheckpoint resumes from it with
// the same clock, generator, auditor, durable storage, fault configuration
// and DNS table, as after an unclean shutdown of the whole system.
//
// # Panics
//
// Without Config.CatchPanics, the first task panic stops the run, and Start
// re-panics with the task's value after cleanup. With it, the task's Handle
// returns a *simrt.PanicError. The root's own panic always propagates. A
// task that calls runtime.Goexit (t.FailNow) ends Start's goroutine after
// the same cleanup, so a failed test leaks nothing.
//
// # External processes
//
// Config.External (pacing mode) is for simulations that talk to real
// processes: every iteration sleeps one real Cycle and time is never
// skipped; Pace delivers a real goroutine's result at a deterministic
// simulated time. On a production context Pace just calls its function, so
// code that paces runs unchanged on both runtimes.
package deterministic
