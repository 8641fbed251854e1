package deterministic

import (
	"log/slog"
	"math/rand/v2"
	"time"
)

// Config sets up a simulation. The zero value is a valid configuration:
// seed 0, 1 ms cycles, starting at the Unix epoch, no timeout, panics
// propagated, no storage faults.
type Config struct {
	// Seed drives every random choice: the schedule, faults, and the numbers
	// tasks draw. Same Seed, same program: same run.
	Seed uint64
	// Source, when set, replaces the ChaCha8 generator seeded from Seed
	// (useful for fuzzing, where the fuzzer controls the bytes).
	Source rand.Source
	// Cycle is the simulated time one executor iteration takes, which keeps
	// a task that never parks from freezing time. Zero means 1 ms.
	Cycle time.Duration
	// StartTime is the simulated time at start. The zero value means the
	// Unix epoch; a time before the epoch, or at or after the end of
	// simulated time (2262-04-11, math.MaxInt64 ns after the epoch), is
	// invalid.
	StartTime time.Time
	// Timeout stops the run with a "runtime timeout" *Verdict once this much
	// simulated time has passed since StartTime. Zero means no limit.
	Timeout time.Duration
	// CatchPanics makes a task's panic an error from its Handle (a
	// *simrt.PanicError) instead of stopping the run. The root's own panic
	// always propagates.
	CatchPanics bool
	// StorageFaults sets the storage faults to inject. The zero value
	// injects none.
	StorageFaults StorageFaults
	// Network sets the simulated network's limits; the zero value is the reference's network.
	Network NetworkConfig
	// Buggify sets how simrt.Buggify sites behave. The zero value enables
	// each site with probability 0.25 and fires it on a quarter of its calls.
	Buggify BuggifyConfig
	// Coverage, when set, receives this run's record of the properties and
	// Buggify sites it reached, when the run ends (see Coverage).
	Coverage *Coverage
	// External switches on pacing mode, for simulations that wait on real
	// processes: every iteration sleeps one real Cycle, idle time is never
	// skipped, a run with nothing ready waits instead of stalling, and Pace
	// delivers real results at deterministic simulated times.
	External bool
	// Watchdog is how long one resume of a task may stay blocked in a native
	// Go call (a channel, sync.Mutex, time.Sleep, real I/O: each freezes the
	// simulation) before the run is stopped with a panic that names the task
	// and shows the stacks. A task that is merely computing is never
	// stopped. Zero means 10 s; negative disables the watchdog.
	Watchdog time.Duration
	// EventLog keeps audited events for comparison (see Auditor.Log): the
	// last EventLog events when positive, all of them when negative, none
	// when zero.
	EventLog int
	// Coroutines, when set, lends the run idle task coroutines left by
	// earlier runs and takes back this run's at the end (see Coroutines).
	// It changes nothing but speed. Nil means the run makes its own.
	Coroutines *Coroutines
	// OnTaskPanic, when set, is called with the task's name, the panic value
	// and its stack whenever a task (or the root) panics, before the runtime
	// reacts. Test harnesses use it to report the failing task.
	OnTaskPanic func(task string, value any, stack []byte)
	// AfterResume, when set, is called by the executor after every resume
	// of a task (the root included), with the task's name and the simulated
	// time, and once more, from Start, when a task ends the goroutine
	// running the simulation with runtime.Goexit (t.FailNow). Test
	// harnesses use it to find where a test was first marked failed
	// (simtest does, when its event log is on). It runs between tasks and
	// must not use the runtime. Nil costs nothing but one test per resume.
	AfterResume func(task string, now time.Time)
	// LogHandler is where the loggers of the run's contexts write (see
	// telemetry/logging.Logger), each record stamped with the simulated
	// time, the task, the context's host when it has one, and the seed.
	// Nil means slog.Default's handler. simtest sets it to capture the log
	// of a failing seed into its report.
	LogHandler slog.Handler
}

const (
	defaultCycle    = time.Millisecond
	defaultWatchdog = 10 * time.Second
)

// validate panics, with the reference's messages, on an invalid config, and
// fills in defaults.
func (c Config) validate() Config {
	if c.Cycle < 0 {
		panic("cycle duration must be greater than or equal to system time precision")
	}
	if c.Cycle == 0 {
		c.Cycle = defaultCycle
	}
	if c.Timeout < 0 {
		panic("timeout must not be negative")
	}
	if c.StartTime.IsZero() {
		c.StartTime = time.Unix(0, 0).UTC()
	}
	if c.StartTime.Before(time.Unix(0, 0)) {
		panic("start time must be greater than or equal to unix epoch")
	}
	if !c.StartTime.Before(time.Unix(0, never)) {
		panic("start time must be before the end of simulated time (2262-04-11)")
	}
	if c.Watchdog == 0 {
		c.Watchdog = defaultWatchdog
	}
	c.Buggify = c.Buggify.validate()
	return c
}
