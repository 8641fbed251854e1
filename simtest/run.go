package simtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// Func is a simulation's root: it runs as the root task of a fresh runtime,
// with the test (or, under Explore, the seed's subtest) that owns it.
// t.Error, t.Fatal, t.Skip and friends may be called from the root and from
// any task it spawns: a Fatal ends the simulation, cleans it up and reports
// it like a panic.
type Func func(t *testing.T, ctx *deterministic.Context)

// Run runs root once as a simulation configured by cfg. Its seed is
// cfg.Seed, or the seed given with -simrt.seed (or SIMRT_SEED) to replay a
// failure. If the simulation fails (a panic, "runtime stalled", "runtime
// timeout", "runtime livelock", a failed assertion), Run marks t failed and
// logs a report: the seed, the simulated time, the failing task with its
// stack, the last events before the failure and the command that replays
// it. It returns when the simulation has ended; after a fatal failure it
// ends the test with t.FailNow.
//
// Run honours -simrt.checkdeterminism (the simulation runs twice and the
// event streams are compared), -simrt.trace (a trace file is written, even
// on failure) and -simrt.cryptorand (see SeedCrypto). Call it from the
// test's goroutine.
func Run(t *testing.T, cfg deterministic.Config, root Func) {
	t.Helper()
	mustStart(t, "Run", cfg, root == nil)
	st := mustSettings(t)
	if st.hasSeed {
		cfg.Seed = st.seed
	}
	if st.events == autoEvents {
		st.events = reportEvents
	}
	runSeed(t, t.Name(), cfg, st, st.trace, root)
}

// mustStart fails t at the call of fn (simtest.Run, ...) when root is nil
// or cfg is not a valid deterministic.Config, before any seed runs: a bad
// argument is one line naming it, not a failing seed with a replay
// command.
func mustStart(t testing.TB, fn string, cfg deterministic.Config, nilRoot bool) {
	t.Helper()
	if nilRoot {
		t.Fatalf("simtest.%s: nil root function", fn)
	}
	if err := validConfig(cfg); err != nil {
		t.Fatalf("simtest.%s: %v", fn, err)
	}
}

// validConfig reports whether deterministic.New accepts cfg: it panics,
// naming the field, on an invalid one.
func validConfig(cfg deterministic.Config) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid deterministic.Config: %v", r)
		}
	}()
	deterministic.New(cfg)
	return nil
}

func mustSettings(t *testing.T) settings {
	t.Helper()
	st, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// runSeed runs one seed as configured, with the optional determinism check
// and trace, and reports a failure on t. name is the test to replay.
func runSeed(t *testing.T, name string, cfg deterministic.Config, st settings, trace string, root Func) {
	t.Helper()
	trace = inArtifacts(t, trace)
	st.record, st.shrinkOut = inArtifacts(t, st.record), inArtifacts(t, st.shrinkOut)
	if st.check {
		if d := checkDeterminism(t, cfg, root, st.crypto); d != nil {
			replay := replayCommand(name, cfg.Seed) + streamFlags(st)
			markFailure(t, cfg.Seed, replay)
			t.Errorf("simrt: seed %d is not deterministic\n%s\nreplay: %s", cfg.Seed, d, replay)
		}
		if t.Failed() {
			return
		}
	}
	if trace != "" && cfg.Hooks.EventLog >= 0 {
		cfg.Hooks.EventLog = -1
	} else if cfg.Hooks.EventLog == 0 {
		cfg.Hooks.EventLog = st.events
	}
	var aud *deterministic.Auditor
	defer func() {
		if trace != "" && aud != nil {
			if err := writeTrace(trace, cfg.Seed, aud.Log().Events()); err != nil {
				t.Errorf("simrt: trace: %v", err)
			} else {
				t.Logf("simrt: trace of seed %d written to %s", cfg.Seed, trace)
			}
		}
	}()
	if st.crypto {
		cryptotest.SetGlobalRandom(t, cfg.Seed)
	}
	// Streams: -simrt.replay, -simrt.record, -simrt.shrink and
	// -simrt.inevitable (shrink.go). Deferred, because a t.FailNow inside
	// the simulation leaves runSeed by runtime.Goexit.
	ss := setupStreams(t, name, &cfg, st, &aud)
	defer func() { ss.after(t, name, cfg, st, aud) }()
	f := simulate(t, name, replayCommand(name, cfg.Seed)+streamFlags(st), true, cfg, root, func(a *deterministic.Auditor) { aud = a })
	if f != nil {
		f.events = lastEvents(f.events, st.events)
		f.mark(t, name)
		t.Errorf("%s", f.report(name))
		if f.fatal {
			t.FailNow()
		}
	}
}

// failure describes a failed simulation.
type failure struct {
	seed   uint64
	what   string // "panic: ...", "runtime stalled", "t.Fatal", ...
	fatal  bool   // the simulation did not finish normally
	task   string
	known  bool // task and time are exact (from a panic), not the last event's
	time   time.Time
	start  time.Time
	stack  []byte
	state  string
	events []audit.Event
	total  uint64
	// first is where the test was first marked failed, when simtest
	// located it (see locator).
	first *locator
	// logs are the last records the simulation logged, of logTotal.
	logs     []string
	logTotal int
	// effects are what the last faults of the run did, of effectTotal.
	effects     []string
	effectTotal int
	// replay is the report's replay line; "" means replayCommand of the
	// test and seed.
	replay string
	// shrink says the report ends with the command that shrinks the
	// failure: the replay line with -simrt.shrink.
	shrink bool
}

// simulate runs one simulation and returns its failure, or nil. replay is
// the replay line of its report ("": replayCommand of name and the seed);
// with shrink set the report ends with the command that shrinks it,
// also in the report of a t.FailNow, which simulate makes itself. The
// auditor is handed to onStart as soon as the root runs. A runtime.Goexit
// from a task (t.FailNow) is reported here and then continues: the caller's
// deferred calls run and the test goroutine ends, as t.FailNow intends.
func simulate(t *testing.T, name, replay string, shrink bool, cfg deterministic.Config, root Func, onStart func(*deterministic.Auditor)) (f *failure) {
	t.Helper()
	once := func(cfg deterministic.Config, enter func(*deterministic.Context)) {
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
			enter(ctx)
			root(t, ctx)
		})
	}
	return harness(t, name, replay, shrink, cfg, once, nil, onStart)
}

// harness runs the simulations of drive under simtest's hooks and returns
// the failure, or nil. drive starts them with cfg (its panic, resume and
// log hooks set) and calls enter with each root context before its root
// runs; it may run several (the epochs of one seed), and should stop once
// the test has failed. label, if set, rewrites what every failure says;
// replay, if set, is every failure's replay line, and shrink ends every
// report with the command that shrinks the failure (runSeed's, which
// -simrt.shrink serves).
func harness(t *testing.T, name, replay string, shrink bool, cfg deterministic.Config, drive func(deterministic.Config, func(*deterministic.Context)), label func(string) string, onStart func(*deterministic.Auditor)) (f *failure) {
	t.Helper()
	defer trapLogFatal()() // logfatal.go
	h := newWatch(t, cfg, label)
	h.replay, h.shrink = replay, shrink
	finished := false
	defer func() {
		if !finished {
			f = h.unwound(name, recover())
		}
	}()
	drive(h.cfg, func(ctx *deterministic.Context) {
		h.ctx0 = ctx
		h.aud = ctx.Auditor()
		if onStart != nil {
			onStart(h.aud)
		}
	})
	finished = true
	if h.logFatal != nil { // a caught panic (CatchPanics): the run went on
		return h.build(h.logFatal, "", false, false)
	}
	if t.Failed() && !h.failedBefore {
		return h.build(nil, "the test failed (t.Error) inside the simulation", false, true)
	}
	return nil
}

// watch is what harness learns of its simulations through their hooks,
// for the failure report.
type watch struct {
	t            *testing.T
	cfg          deterministic.Config // the caller's, with the hooks set
	label        func(string) string
	replay       string                 // the replay line of a failure; "": the default
	shrink       bool                   // reports end with the shrink command
	failedBefore bool                   // t had failed before the simulations ran
	ctx0         *deterministic.Context // the running simulation's root context
	aud          *deterministic.Auditor // its auditor
	panicked     *failure               // the last task panic
	logFatal     *failure               // the first task panic that was a log.Fatal (logfatal.go)
	loc          *locator
	logs         *logRing
}

// newWatch returns the watch of simulations configured by cfg: its cfg is
// cfg with simtest's panic, resume and log hooks in front of the caller's.
func newWatch(t *testing.T, cfg deterministic.Config, label func(string) string) *watch {
	h := &watch{t: t, label: label, failedBefore: t.Failed(), logs: &logRing{}}
	h.loc = &locator{t: t, aud: &h.aud}
	user := cfg.Hooks.OnTaskPanic
	cfg.Hooks.OnTaskPanic = func(task string, value any, stack []byte) {
		if h.ctx0 != nil { // keep the last: it is the one that stops the run
			h.panicked = &failure{what: fmt.Sprintf("panic: %v", value), task: task, known: true,
				time: h.ctx0.Now(), stack: stack}
			if _, ok := value.(*LogFatal); ok && h.logFatal == nil {
				h.logFatal = h.panicked
			}
		}
		if user != nil {
			user(task, value, stack)
		}
	}
	if cfg.Hooks.EventLog != 0 && !h.failedBefore {
		cfg.Hooks.AfterResume = h.loc.hook(cfg.Hooks.AfterResume)
	}
	cfg.Hooks.LogHandler = h.logs.handler(cfg.Hooks.LogHandler)
	h.cfg = cfg
	return h
}

// unwound returns the failure of a drive that did not return: r is what
// it panicked with (nil for runtime.Goexit, t.FailNow or t.SkipNow in a
// task, which it reports on t itself and returns nil for).
func (h *watch) unwound(name string, r any) *failure {
	if r == nil {
		if !h.t.Skipped() {
			f := h.build(nil, "the test failed (t.FailNow, t.Fatal) inside the simulation", true, true)
			f.mark(h.t, name)
			h.t.Errorf("%s", f.report(name))
		}
		return nil
	}
	var verdict *deterministic.Verdict
	if err, ok := r.(error); ok {
		errors.As(err, &verdict)
	}
	switch {
	case verdict != nil && errors.Is(verdict, deterministic.ErrNativeBlock):
		// The run was abandoned, its task still blocked: its auditor and
		// log belong to goroutines that may yet wake, so the report
		// says only what the verdict does.
		h.aud, h.ctx0 = nil, nil
		f := h.build(nil, verdict.Error(), true, false)
		f.time, f.known, f.state = verdict.Time, true, "unknown (the run was abandoned)"
		if len(verdict.Tasks) > 0 {
			f.task = verdict.Tasks[0].Name
		}
		return f
	case verdict != nil && errors.Is(verdict, deterministic.ErrRunTimeout):
		f := h.build(nil, verdict.Error(), true, false)
		f.time, f.known = f.start.Add(h.cfg.Timeout), true
		return f
	case verdict != nil: // stalled or livelocked
		return h.build(nil, verdict.Error(), true, false)
	case h.panicked != nil:
		return h.build(h.panicked, "", true, false)
	}
	return h.build(nil, fmt.Sprintf("panic: %v", r), true, false)
}

// build makes the report: base (or a failure saying what) completed with
// what the watch saw. atFirst says the failure is the test's own (t.Error,
// t.Fatal), so that where it was first marked failed is where it failed.
func (h *watch) build(base *failure, what string, fatal, atFirst bool) *failure {
	f := base
	if f == nil {
		f = &failure{what: what}
	}
	f.seed, f.fatal, f.replay, f.shrink = h.cfg.Seed, fatal, h.replay, h.shrink
	if h.label != nil {
		f.what = h.label(f.what)
	}
	f.start = startTime(h.cfg)
	if h.aud != nil {
		f.state = h.aud.State()
		f.events = h.aud.Log().Events()
		f.total = h.aud.Log().Total()
	}
	f.logs, f.logTotal = h.logs.lines()
	f.effects, f.effectTotal = effectLines(h.ctx0)
	if loc := h.loc; loc.found {
		f.first = loc
		if atFirst && !f.known {
			f.task, f.time, f.known = loc.task, loc.time, true
			f.events, f.total = loc.events, loc.total
		}
	}
	if !f.known && len(f.events) > 0 {
		last := f.events[len(f.events)-1]
		f.time, f.task = last.Time, last.Task
		if last.Label == audit.ProcessTask && len(last.Fields) == 2 {
			f.task = string(last.Fields[1])
		}
	}
	return f
}

func startTime(cfg deterministic.Config) time.Time {
	if cfg.StartTime.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return cfg.StartTime.UTC()
}

func lastEvents(evs []audit.Event, n int) []audit.Event {
	if len(evs) > n {
		return evs[len(evs)-n:]
	}
	return evs
}

// report renders the failure for a test log.
func (f *failure) report(testName string) string {
	var b strings.Builder
	task := f.task
	if task == "" {
		task = "<root>"
	}
	switch {
	case f.known || len(f.events) > 0:
		fmt.Fprintf(&b, "simrt: seed %d failed at %v of simulated time (%s) in task %q",
			f.seed, f.time.Sub(f.start), f.time.UTC().Format(time.RFC3339Nano), task)
		if !f.known {
			b.WriteString(" (the last to run; time of its last event)")
		}
	default:
		fmt.Fprintf(&b, "simrt: seed %d failed (the event log is off: replay for the time, task and last events)", f.seed)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "%s\n", f.what)
	switch l := f.first; {
	case l != nil:
		fmt.Fprintf(&b, "the test was first marked failed (t.Error, t.Fatal, t.Fail) at %v of simulated time in task %s\n",
			l.time.Sub(f.start), taskName(l.task))
	case !f.fatal && !f.known:
		b.WriteString("(with the event log off the report cannot say where t.Error was called: replay the seed)\n")
	}
	if len(f.stack) > 0 {
		fmt.Fprintf(&b, "stack of task %q:\n%s\n", task, trimStack(f.stack))
	}
	if len(f.events) > 0 {
		at := "before the failure"
		if !f.known {
			at = "of the run"
		}
		fmt.Fprintf(&b, "last %d of %d events %s ('>': task %s):\n", len(f.events), f.total, at, taskName(f.task))
		for _, e := range f.events {
			fmt.Fprintf(&b, "%s\n", formatEvent(e, f.start, f.task, f.known || f.task != ""))
		}
	}
	if len(f.logs) > 0 {
		fmt.Fprintf(&b, "log, last %d of %d records:\n", len(f.logs), f.logTotal)
		for _, l := range f.logs {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	writeEffects(&b, f.effects, f.effectTotal)
	fmt.Fprintf(&b, "audit state: %s\n", f.state)
	replay := f.replay
	if replay == "" {
		replay = replayCommand(testName, f.seed)
	}
	fmt.Fprintf(&b, "replay: %s", replay)
	if f.shrink {
		// Whatever caused it, the faults or the decisions.
		fmt.Fprintf(&b, "\nshrink: %s -simrt.shrink", replay)
	}
	return b.String()
}

// mark gives t, the failing seed's test, its attributes (artifacts.go).
func (f *failure) mark(t *testing.T, testName string) {
	replay := f.replay
	if replay == "" {
		replay = replayCommand(testName, f.seed)
	}
	markFailure(t, f.seed, replay)
}

// replayCommand returns the go test command that reruns test with seed,
// from the module root.
func replayCommand(test string, seed uint64) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	pattern := strings.Join(parts, "/")
	return fmt.Sprintf("%s -run '%s' %s -simrt.seed=%d", testCommand(), strings.ReplaceAll(pattern, "'", `'\''`), packageDir(), seed)
}

// testCommand is the command that runs a package's tests: "go test", or
// SIMRT_TEST_COMMAND, which `simrt test` sets to itself (plain-Go tests
// build only with its overlay).
func testCommand() string {
	if c := os.Getenv("SIMRT_TEST_COMMAND"); c != "" {
		return c
	}
	return "go test"
}

// streamFlags returns the flags, each with a leading space, that a replay
// command needs besides the seed to rerun what st ran: the fault schedule
// file (-simrt.schedule), the replayed stream (-simrt.replay) and
// -simrt.replaydefaults. Without them the seed alone makes another run.
func streamFlags(st settings) string {
	var b strings.Builder
	if path := schedulePath(); path != "" {
		b.WriteString(" -simrt.schedule=" + shellQuote(path))
	}
	if st.replay != "" {
		b.WriteString(" -simrt.replay=" + shellQuote(st.replay))
	}
	if st.replayDefaults {
		b.WriteString(" -simrt.replaydefaults")
	}
	return b.String()
}

// packageDir returns the package under test as a path relative to its
// module root ("./pkg/x"), or "." when it cannot tell. go test runs a
// test binary in its package's directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

// trimStack drops the frames of the recovery machinery above the panic, so
// that the stack starts at the panicking call.
func trimStack(stack []byte) string {
	s := strings.TrimRight(string(stack), "\n")
	header, rest, ok := strings.Cut(s, "\n")
	if !ok {
		return s
	}
	if i := strings.Index(rest, "\npanic("); i >= 0 {
		if j := strings.Index(rest[i+1:], "\n\t"); j >= 0 {
			if k := strings.IndexByte(rest[i+1+j+2:], '\n'); k >= 0 {
				return header + "\n" + rest[i+1+j+2+k+1:]
			}
		}
	}
	return s
}
