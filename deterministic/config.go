package deterministic

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/deterministic/pool"
	"github.com/simrt/simrt/network/simnet"
	"github.com/simrt/simrt/storage/faulty"
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
	// AdvanceWhenBlocked makes simulated time pass only when every task is
	// blocked, as testing/synctest does: an executor iteration costs no
	// time, and when nothing is ready the clock jumps to the earliest
	// timer. So a Sleep of 100 ms lasts exactly 100 ms however much the
	// other tasks do meanwhile, and timers due at one instant wake their
	// tasks together, in an order drawn from the stream. Plain-Go mode
	// uses it (docs/PLAIN-GO.md). Tasks that keep one another ready
	// without ever all blocking (spinning on Reschedule, a flag or
	// TryLock) would freeze time for good: after SpinIterations
	// iterations without the clock moving, the clock moves one Cycle
	// (never past the next timer), so such a run still reaches its timers
	// and its Timeout. Off, each iteration costs one Cycle.
	AdvanceWhenBlocked bool
	// SpinIterations is how many executor iterations in a row may pass
	// without the clock moving under AdvanceWhenBlocked before it moves one
	// Cycle anyway. Zero means 10,000. Ignored without
	// AdvanceWhenBlocked.
	SpinIterations int
	// Timeout stops the run with a "runtime timeout" *Verdict once this much
	// simulated time has passed since StartTime. Zero means no limit. It
	// counts simulated time only: a run whose tasks keep running while
	// simulated time stands still never reaches it (LivelockSteps stops
	// that run).
	Timeout time.Duration
	// CatchPanics makes a task's panic an error from its Handle (a
	// *simrt.PanicError) instead of stopping the run. The root's own panic
	// always propagates.
	CatchPanics bool
	// StorageFaults sets the storage faults to inject. The zero value
	// injects none.
	StorageFaults faulty.Config
	// Network sets the simulated network's limits; the zero value is the
	// default network (see simnet.Config).
	Network simnet.Config
	// Buggify sets how simrt.Buggify sites behave. The zero value enables
	// each site with probability 0.25 and fires it on a quarter of its calls.
	Buggify BuggifyConfig
	// External switches on pacing mode, for simulations that wait on real
	// processes: every iteration sleeps one real Cycle, idle time is never
	// skipped, a run with nothing ready waits instead of stalling, and Pace
	// delivers real results at deterministic simulated times.
	External bool
	// LivelockSteps is how many resumes in a row, without simulated time
	// advancing or a task ending, stop the run with a "runtime livelock"
	// *Verdict naming the tasks that kept running. Time advances by Cycle
	// at the end of every executor iteration, so only a run that never ends
	// an iteration (tasks that keep handing each other control through
	// spawns or take-overs) or whose clock is stuck at the end of simulated
	// time can reach it; Timeout never fires there (simulated time does not
	// pass), nor does the watchdog (every resume returns). Zero means
	// 1,000,000; negative disables the guard.
	LivelockSteps int
	// Replay, when set, supplies the run's decisions ahead of the seeded
	// generator: a decision.Stream recorded earlier replays that run (see
	// decision.Decider).
	Replay decision.Decider
	// Scheduling tunes how the run orders its tasks: scheduling points,
	// the scheduler, Select's choice. The zero value is the uniform
	// scheduler with DefaultYieldProbability.
	Scheduling Scheduling
	// Hooks are what watches a run without changing it (coverage, the
	// event log, a recording of the decisions, callbacks, the log
	// handler, the watchdog) and the coroutine pool, which changes only
	// its speed. The zero value watches nothing.
	Hooks Hooks
}

// Scheduling tunes the scheduler of a run (Config.Scheduling). The zero
// value is the uniform scheduler, yielding at scheduling points with
// DefaultYieldProbability, and Select picking among ready cases from the
// decision stream.
type Scheduling struct {
	// YieldProbability is the chance that a task yields at a scheduling
	// point (a primitive operation that does not park: an uncontended Lock
	// or Unlock, a Send into a channel with room, a Fire, a Handle await
	// that is already done, ...), and that a spawned task runs before its
	// creator continues. Zero means DefaultYieldProbability; a negative
	// value (NoYield) turns scheduling points off, so that a task switches
	// only where it parks, as before scheduling points existed. Above 1 is
	// invalid.
	YieldProbability float64
	// Scheduler picks the scheduling algorithm: Uniform (the zero value)
	// or PCT.
	Scheduler Scheduler
	// PCTDepth is the bug depth d PCT targets: it places d-1 priority
	// change points. Zero means 3. Used only with Scheduler PCT.
	PCTDepth int
	// PCTSteps is PCT's estimate k of the scheduling points in one run;
	// change points are placed uniformly over the first k. Zero means 100.
	PCTSteps int
	// BiasedSelect makes every Select take the earliest ready case, as
	// SelectBiased does, instead of one picked by the decision stream.
	BiasedSelect bool
}

// Hooks observe a run (Config.Hooks): none of them changes which
// decisions it makes, so a run with hooks is the same run as without. The
// zero value observes nothing and checks for stuck tasks after 10 s.
type Hooks struct {
	// Coverage, when set, receives this run's record of the properties and
	// Buggify sites it reached, when the run ends (see Coverage).
	Coverage *Coverage
	// EventLog keeps audited events for comparison (see Auditor.Log): the
	// last EventLog events when positive, all of them when negative, none
	// when zero.
	EventLog int
	// Record, when set, receives every decision of the run, in order.
	Record *decision.Stream
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
	// Nil means a slog.TextHandler on os.Stderr, which prints the simulated
	// time, so one seed logs the same bytes every run (slog.Default's
	// handler would print the wall clock). simtest sets it to capture the
	// log of a failing seed into its report.
	LogHandler slog.Handler
	// Watchdog is how long one resume of a task may stay blocked in a native
	// Go call (a channel, sync.Mutex, time.Sleep, real I/O: each freezes the
	// simulation) before the run is given up: Start panics with an
	// ErrNativeBlock *Verdict that names the task and shows its stack, and
	// the run's goroutines are abandoned (see Runner.Start). A task that is
	// merely computing is never stopped, nor are tasks that keep resuming
	// and returning at one simulated instant (Config.LivelockSteps stops
	// those). Zero means 10 s; negative disables the watchdog (and the run
	// then executes on Start's goroutine).
	Watchdog time.Duration
	// Coroutines, when set, lends the run idle task coroutines left by
	// earlier runs and takes back this run's at the end (see package pool).
	// It changes nothing but speed. Nil means the run makes its own.
	Coroutines *pool.Coroutines
}

// Scheduler is a scheduling algorithm (see Config.Scheduling.Scheduler).
type Scheduler uint8

//go:generate stringer -type=Scheduler -linecomment -output=scheduler_string.go

const (
	// Uniform runs the ready tasks of each executor iteration in an order
	// drawn uniformly from the stream, and yields at each scheduling point
	// with Config.Scheduling.YieldProbability.
	Uniform Scheduler = iota // uniform
	// PCT is probabilistic concurrency testing (Burckhardt et al., ASPLOS
	// 2010): every task gets a random priority, the ready task with the
	// highest runs, and at d-1 scheduling points drawn from the first k
	// the running task's priority drops below every other. It finds a bug
	// of depth d with probability at least 1/(n·k^(d-1)) per run for n
	// tasks. Config.Scheduling.YieldProbability does not apply.
	PCT // pct
)

// DefaultYieldProbability is the YieldProbability of a zero Config.
const DefaultYieldProbability = 0.05

// defaultSpinIterations is the SpinIterations of a zero Config.
const defaultSpinIterations = 10000

// NoYield is a YieldProbability that turns scheduling points off.
const NoYield = -1.0

const (
	defaultCycle    = time.Millisecond
	defaultWatchdog = 10 * time.Second
)

// validate panics on an invalid config, naming the field as realtime's
// Config does ("deterministic.New: Config.Timeout must not be negative"),
// and fills in defaults.
func (c Config) validate() Config {
	if c.Cycle < 0 {
		panic("deterministic.New: Config.Cycle must not be negative (zero means 1 ms)")
	}
	if c.Cycle == 0 {
		c.Cycle = defaultCycle
	}
	if c.SpinIterations < 0 {
		panic("deterministic.New: Config.SpinIterations must not be negative (zero means 10,000)")
	}
	if c.SpinIterations == 0 {
		c.SpinIterations = defaultSpinIterations
	}
	if c.AdvanceWhenBlocked && c.External {
		panic("deterministic.New: Config.AdvanceWhenBlocked and Config.External exclude each other (pacing mode spends real time every iteration)")
	}
	if c.Timeout < 0 {
		panic("deterministic.New: Config.Timeout must not be negative (zero means no limit)")
	}
	if c.StartTime.IsZero() {
		c.StartTime = time.Unix(0, 0).UTC()
	}
	if c.StartTime.Before(time.Unix(0, 0)) {
		panic("deterministic.New: Config.StartTime must not be before the Unix epoch (the zero time means the epoch)")
	}
	if !c.StartTime.Before(time.Unix(0, never)) {
		panic("deterministic.New: Config.StartTime must be before the end of simulated time (2262-04-11)")
	}
	if c.Scheduling.YieldProbability > 1 || c.Scheduling.YieldProbability != c.Scheduling.YieldProbability {
		panic("deterministic.New: Config.Scheduling.YieldProbability must be at most 1 (zero means the default, negative NoYield)")
	}
	if c.Scheduling.YieldProbability == 0 {
		c.Scheduling.YieldProbability = DefaultYieldProbability
	}
	if c.Scheduling.Scheduler > PCT {
		panic("deterministic.New: Config.Scheduling.Scheduler is unknown (want Uniform or PCT)")
	}
	if c.Scheduling.PCTDepth < 0 {
		panic("deterministic.New: Config.Scheduling.PCTDepth must not be negative (zero means 3)")
	}
	if c.Scheduling.PCTSteps < 0 {
		panic("deterministic.New: Config.Scheduling.PCTSteps must not be negative (zero means 100)")
	}
	if c.Scheduling.PCTDepth == 0 {
		c.Scheduling.PCTDepth = 3
	}
	if c.Scheduling.PCTSteps == 0 {
		c.Scheduling.PCTSteps = 100
	}
	if c.Hooks.Watchdog == 0 {
		c.Hooks.Watchdog = defaultWatchdog
	}
	if c.LivelockSteps == 0 {
		c.LivelockSteps = defaultLivelockSteps
	}
	c.Buggify = c.Buggify.validate()
	return c
}
