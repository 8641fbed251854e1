package simrt

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PropertyKind says what a property asserts. The five kinds are those of
// Antithesis: Always and AlwaysOrUnreachable must hold on every
// evaluation, Unreachable must never be reached, and Sometimes and
// Reachable are goals a sweep of seeds should meet at least once.
type PropertyKind uint8

//go:generate stringer -type=PropertyKind -trimprefix=Property -output=propertykind_string.go

const (
	// PropertyAlways must be true on every evaluation, and a sweep expects
	// it to be evaluated at least once.
	PropertyAlways PropertyKind = iota + 1
	// PropertyAlwaysOrUnreachable must be true on every evaluation; never
	// evaluating it is fine.
	PropertyAlwaysOrUnreachable
	// PropertySometimes is a goal: true on at least one evaluation.
	PropertySometimes
	// PropertyReachable is a goal: evaluated at least once.
	PropertyReachable
	// PropertyUnreachable must never be evaluated.
	PropertyUnreachable
)

// Fails reports whether an evaluation with condition cond violates a
// property of kind k: a false Always or AlwaysOrUnreachable, or any
// evaluation of Unreachable (whose condition is always true).
func (k PropertyKind) Fails(cond bool) bool {
	return k == PropertyUnreachable || (!cond && (k == PropertyAlways || k == PropertyAlwaysOrUnreachable))
}

// Goal reports whether a sweep expects something of a property of kind k
// beyond never failing: Always and Reachable must be evaluated, Sometimes
// must be true, at least once over the sweep's seeds.
func (k PropertyKind) Goal() bool {
	return k == PropertyAlways || k == PropertySometimes || k == PropertyReachable
}

// Asserter is the runtime half of the property functions (Always,
// Sometimes, ...) and of Buggify; every Context implements it. User code
// calls the functions, never these methods: a runtime finds the property's
// call site by walking up the stack a fixed number of frames, so
// AssertProperty must be called directly by one of the functions of this
// package.
type Asserter interface {
	// AssertProperty records one evaluation of a property. For Reachable
	// and Unreachable cond is true. details are slog-style key-value pairs
	// (or slog.Attr values) describing the evaluation.
	AssertProperty(kind PropertyKind, cond bool, message string, details []any)
	// BuggifySite reports whether the Buggify site named site fires on this
	// call.
	BuggifySite(site string) bool
}

// Always asserts that cond holds every time this call is evaluated, and
// that it is evaluated at least once over a sweep of seeds. A property is
// identified by its message and its call site (file and line), so give each
// call a constant message that states what must hold ("balance never
// negative"); a constant message also lets simtest find the call in the
// source and report it when no seed reached it.
//
// In a simulation a false cond stops the run at once: the calling task
// panics with a *PropertyError naming the property, its call site, the
// seed and the position in the run, and the runtime's Start re-raises it
// (Config.CatchPanics does not swallow it), so a test fails with the seed
// to replay. details are slog-style key-value pairs included in the error;
// they are only looked at on failure. Evaluations are not audited: adding
// a property to code does not change any seed's run.
//
// In production (package realtime) a true cond costs a call and a branch;
// a false one is logged at error level through the runtime's logger, and
// the program carries on. It never panics there on a false cond.
//
// Every property function and Buggify panic at the call, in both runtimes,
// on a nil ctx (the call could not go on). An empty message (or Buggify
// site name) is a bug of the calling code, since the message is the
// property's identity: a simulation panics at the call, naming the
// function; production never panics on it and carries on as for any other
// message.
func Always(ctx Context, cond bool, message string, details ...any) {
	mustContext(ctx == nil, "Always")
	ctx.AssertProperty(PropertyAlways, cond, message, details)
}

// AlwaysOrUnreachable is Always for a property that may never be reached:
// a false cond fails the run, but a sweep that never evaluates it is fine.
func AlwaysOrUnreachable(ctx Context, cond bool, message string, details ...any) {
	mustContext(ctx == nil, "AlwaysOrUnreachable")
	ctx.AssertProperty(PropertyAlwaysOrUnreachable, cond, message, details)
}

// Sometimes states a goal: cond should be true on at least one evaluation
// over a sweep of seeds ("a leader was elected twice", "the retry path
// ran"). It never fails a run; simtest.Explore lists it with the number of
// seeds in which it was true, reports it when it never was, and fails the
// sweep then in strict mode. In production it does nothing.
func Sometimes(ctx Context, cond bool, message string, details ...any) {
	mustContext(ctx == nil, "Sometimes")
	ctx.AssertProperty(PropertySometimes, cond, message, details)
}

// Reachable states a goal: this call should be reached by at least one
// seed of a sweep. Like Sometimes it never fails a run, and in production
// it does nothing.
func Reachable(ctx Context, message string, details ...any) {
	mustContext(ctx == nil, "Reachable")
	ctx.AssertProperty(PropertyReachable, true, message, details)
}

// Unreachable asserts that this call is never reached. Reaching it fails a
// simulation as a false Always does, and is logged in production.
func Unreachable(ctx Context, message string, details ...any) {
	mustContext(ctx == nil, "Unreachable")
	ctx.AssertProperty(PropertyUnreachable, true, message, details)
}

// Buggify reports whether the fault-injection site named site should
// misbehave on this call. System code uses it to widen its own race windows
// in simulation: a delayed write, a shorter timeout, a reordered batch.
//
//	if simrt.Buggify(ctx, "wal_slow_sync") {
//		ctx.Sleep(time.Duration(ctx.Rand().IntN(100)) * time.Millisecond)
//	}
//
// In a simulation each site is switched on for the whole run with
// probability p, drawn at its first call, and an enabled site fires with
// probability q on each call (p and q are deterministic.Config.Buggify,
// 0.25 each by default, FoundationDB's figures). The draws come from the
// run's seeded generator in call order and are audited, so a seed
// reproduces which sites fired; a run that never calls Buggify draws
// nothing. Calls with the same site name share one switch.
//
// In production Buggify always reports false, at the cost of a call and a
// branch.
func Buggify(ctx Context, site string) bool {
	mustContext(ctx == nil, "Buggify")
	return ctx.BuggifySite(site)
}

// CallSite is where a property or Buggify site is in the source.
type CallSite struct {
	// File is the source file's path as the binary records it (absolute,
	// or module-relative with -trimpath).
	File string
	// Line is the line of the call.
	Line int
	// Function is the calling function's package-qualified name.
	Function string
}

// String returns the file's last directory and name and the line:
// "raftkv/node.go:42".
func (s CallSite) String() string {
	if s.File == "" {
		return "?:" + strconv.Itoa(s.Line)
	}
	file := filepath.ToSlash(s.File)
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		if j := strings.LastIndexByte(file[:i], '/'); j >= 0 {
			file = file[j+1:]
		}
	}
	return file + ":" + strconv.Itoa(s.Line)
}

// ErrPropertyFailed is matched (errors.Is) by every *PropertyError.
var ErrPropertyFailed = errors.New("simrt: property failed")

// PropertyError is the verdict of a simulation in which an Always or
// AlwaysOrUnreachable was false or an Unreachable was reached. The failing
// task panics with it and the simulator's Start re-raises it.
type PropertyError struct {
	// Kind and Message identify the property, with Site.
	Kind    PropertyKind
	Message string
	Site    CallSite
	// Details are the key-value pairs passed with the failed evaluation.
	Details []any
	// Seed is the simulation's seed.
	Seed uint64
	// Position is how far the run had come: the executor's step, the
	// number of task resumes so far counting the one that failed.
	Position uint64
	// StreamPosition is the run's decision-stream position at the
	// failure: the number of decisions made before the property was
	// evaluated. Replaying the first StreamPosition decisions of the run's
	// recorded stream (deterministic.Config.Replay) brings a run to the
	// same evaluation; the decisions from there on are the ones that
	// branching or shrinking can change without moving the failure's
	// cause.
	StreamPosition uint64
	// Time is the simulated time of the failure.
	Time time.Time
	// Task is the name of the task that evaluated the property ("" for the
	// root, "<runtime>" outside any task, as in an AfterFunc callback).
	Task string
}

// Error implements error:
// `simrt: Always "balance never negative" failed at bank/bank.go:42 (seed 7, position 1203, task "transfer", 1.5s, stream position 88): balance=-3`.
// The time is the simulated time since the Unix epoch.
func (e *PropertyError) Error() string {
	var b strings.Builder
	verb := "failed"
	if e.Kind == PropertyUnreachable {
		verb = "was reached"
	}
	task := strconv.Quote(e.Task)
	if e.Task == "" {
		task = "<root>"
	}
	fmt.Fprintf(&b, "simrt: %s %q %s at %s (seed %d, position %d, task %s, %v, stream position %d)",
		e.Kind, e.Message, verb, e.Site, e.Seed, e.Position, task, e.Time.Sub(time.Unix(0, 0)), e.StreamPosition)
	if d := formatDetails(e.Details); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	}
	return b.String()
}

// Is reports whether target is ErrPropertyFailed.
func (e *PropertyError) Is(target error) bool { return target == ErrPropertyFailed }

// formatDetails renders slog-style key-value pairs (or slog.Attr values)
// as "key=value key2=value2", with slog's rules for a missing key.
func formatDetails(details []any) string {
	if len(details) == 0 {
		return ""
	}
	r := slog.NewRecord(time.Time{}, 0, "", 0)
	r.Add(details...)
	var b strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
		return true
	})
	return b.String()
}
