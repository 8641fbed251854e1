// Package escape defines an analyzer that reports code escaping simrt's
// simulator: operations that block outside the runtime's primitives, read
// the wall clock, draw unseeded randomness, do real I/O, or let map
// iteration order reach an output. Under the simulator such code freezes
// the run (the watchdog names the task) or makes a seed replay differently.
//
// # Scope
//
// The analyzer checks only packages that import simrt (the module
// github.com/simrt/simrt or any of its packages): code that takes a
// simrt.Context. In test files it checks only the functions and function
// literals that take a simrt context (a simtest.Explore root, a helper
// given *deterministic.Context): the rest of a test file is the harness
// that starts simulations, and may time them on the wall clock or run
// them on goroutines. It reports
//
//   - go statements (start work with simrt.Spawn);
//   - native channel sends, receives, range over a channel and select
//     statements (use simrt.Chan and simrt.Select);
//   - time.Now, Since, Until, Sleep, After, AfterFunc, Tick, NewTimer and
//     NewTicker (use the context's clock);
//   - math/rand and math/rand/v2 top-level functions (use ctx.Rand());
//   - crypto/rand reads (the context is a seeded io.Reader);
//   - sync.Mutex and sync.RWMutex locks, sync.WaitGroup waits, sync.Cond
//     waits (use simrt.Mutex and friends);
//   - runtime.Gosched;
//   - file and network I/O through package os (files) and net (use the
//     context's Storage and Network);
//   - range over a map whose body sends, appends, writes or returns, so
//     that the map's random order can reach an output.
//
// # Suggested fixes
//
// Where the rewrite is mechanical the diagnostic carries a fix: time.Now()
// becomes ctx.Now(), time.Since(t) becomes ctx.Now().Sub(t) and
// time.Sleep(d) becomes ctx.Sleep(d) when a variable named ctx with those
// methods is in scope; a map range with an ordered key becomes a range over
// slices.Sorted(maps.Keys(m)).
//
// # Suppression
//
// A comment "//simrt:allow REASON" on the reported line, or alone on the
// line above it, silences the diagnostics of that line. "//simrt:allow-file
// REASON" above the package clause silences a whole file, for code that
// never runs under the simulator (a production main, a sweep harness).
// The reason is required.
package escape
