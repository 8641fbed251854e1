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
// "runtime stalled". Tasks that keep running while simulated time stands
// still (an iteration that never ends, a clock stuck at the end of time)
// are a livelock that neither Timeout nor the watchdog sees: after
// Config.LivelockSteps resumes without time advancing or a task ending,
// Start panics with "runtime livelock", naming the tasks that kept running.
// The verdicts are a *Verdict (errors.Is ErrStalled, ErrRunTimeout or
// ErrLivelock) whose text lists every live task, what each parked one
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
// the same clock, generator, auditor, durable storage (the runtime's and
// every node's), fault configuration and DNS table, as after an unclean
// shutdown of the whole system.
//
// # Nodes
//
// A node is a simulated machine: Context.AddNode gives it a name, a host
// address, a Main, a clock and a disk, and runs Main as a task, as a process
// runs main. Its contexts act as its host (every Dial leaves from it, Bind
// works there), carry the attribute node=<name> on their metrics and log
// lines, use its own storage (memory → faulty → audited → metered, separate
// from every other node's and from the runtime's) and its clock. System
// code cannot tell a node's context from production's.
//
// Node.Kill kills the process: its tasks are aborted and unwind, its
// connections are reset for the peers (simnet.Network.ResetHost), its
// listeners close and free their addresses, and its disk keeps every write
// handed to it, unsynced ones included, as the page cache does after
// kill -9. Node.PowerOff is a Kill followed by a disk crash: the unsynced
// writes are resolved by the node's storage fault configuration. Restart
// runs Main again, as the next incarnation, on what the disk kept. Any
// operation of an earlier incarnation (a task still unwinding) fails with
// an error wrapping simrt.ErrClosed, so a dead process never writes.
// Pause(d) stops the node's world for d of global time: its tasks are held
// by the executor and its contexts' timers fire late, on resume; its
// connections stay open. A node's clock (NodeClock) adds an offset to the
// global time and a drift to its durations: Sleep(d) lasts
// ceil(d·(1+Drift)) of global time; SetClock and JumpClock change it during
// the run. Global time still orders every event. Every lifecycle operation
// is an auditor event; a run that adds no node is unchanged.
//
// A Checkpoint carries each node's disk by name, after the crash at the end
// of the run; in the resumed run, AddNode with the same name gets it back.
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
