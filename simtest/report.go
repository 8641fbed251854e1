package simtest

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// locator finds where a simulation's test was first marked failed (a
// t.Error, t.Fatal or t.Fail from a task): after every resume it asks the
// test whether it has failed, and keeps the task, the simulated time and
// the event tail of the first resume after which it had. Asking costs a
// lock per resume, so simtest locates only when the event log is on (one
// seed: Run, or a replay); a sweep's report says to replay.
type locator struct {
	t     *testing.T
	aud   **deterministic.Auditor
	found bool
	task  string
	time  time.Time
	// events and total are the event log as it was at that resume.
	events []audit.Event
	total  uint64
}

// hook returns the Config.Hooks.AfterResume that locates the failure, calling
// next (the user's hook) too.
func (l *locator) hook(next func(string, time.Time)) func(string, time.Time) {
	return func(task string, now time.Time) {
		if !l.found && l.t.Failed() {
			l.found, l.task, l.time = true, task, now
			if a := *l.aud; a != nil {
				l.events, l.total = a.Log().Events(), a.Log().Total()
			}
		}
		if next != nil {
			next(task, now)
		}
	}
}

// reportLogRecords is how many log records of a failing seed its report
// shows: the last ones.
const reportLogRecords = 100

// logRing keeps the last records a simulation logged through its contexts'
// loggers (Config.Hooks.LogHandler), rendered by a text handler, for the report
// of a failing seed. Passing seeds print nothing.
type logRing struct {
	mu      sync.Mutex // a text handler may be shared by goroutines of the user's
	records []string
	start   int
	total   int
}

// Write implements io.Writer: slog's text handler writes each record
// with one Write.
func (r *logRing) Write(p []byte) (int, error) {
	rec := strings.TrimRight(string(p), "\n")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if len(r.records) < reportLogRecords {
		r.records = append(r.records, rec)
		return len(p), nil
	}
	r.records[r.start] = rec
	r.start = (r.start + 1) % len(r.records)
	return len(p), nil
}

// lines returns the kept records, oldest first, and how many were logged.
func (r *logRing) lines() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append(append([]string(nil), r.records[r.start:]...), r.records[:r.start]...)
	return out, r.total
}

// handler returns the Config.Hooks.LogHandler that captures into r and also
// passes every record to user, the handler the test configured, if any.
func (r *logRing) handler(user slog.Handler) slog.Handler {
	capture := slog.NewTextHandler(r, &slog.HandlerOptions{Level: slog.LevelDebug})
	if user == nil {
		return capture
	}
	return teeHandler{capture, user}
}

// teeHandler hands each record to two handlers.
type teeHandler struct{ a, b slog.Handler }

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.a.Enabled(ctx, l) || h.b.Enabled(ctx, l)
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.a.Enabled(ctx, r.Level) {
		err = h.a.Handle(ctx, r.Clone())
	}
	if h.b.Enabled(ctx, r.Level) {
		if e := h.b.Handle(ctx, r); err == nil {
			err = e
		}
	}
	return err
}

func (h teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return teeHandler{h.a.WithAttrs(attrs), h.b.WithAttrs(attrs)}
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	return teeHandler{h.a.WithGroup(name), h.b.WithGroup(name)}
}

// formatEvent renders e for a report: the simulated time since start, the
// task by name, and the fields decoded where the kind is known (task ids
// as numbers, timers as times) rather than in hex. Events of the task in
// focus, the one that failed, are marked with '>'.
func formatEvent(e audit.Event, start time.Time, focus string, hasFocus bool) string {
	var b strings.Builder
	f := e.Fields
	resume := e.Label == audit.ProcessTask && len(f) == 2 && len(f[0]) == 8
	if hasFocus && (e.Task == focus && !resume || resume && string(f[1]) == focus) {
		b.WriteString("> ")
	} else {
		b.WriteString("  ")
	}
	fmt.Fprintf(&b, "#%d +%v ", e.Index, e.Time.Sub(start))
	if !resume { // the executor resumes, between tasks
		fmt.Fprintf(&b, "%s: ", taskName(e.Task))
	}
	switch {
	case resume || e.Label == audit.Spawn && len(f) == 2 && len(f[0]) == 8:
		verb := "resume"
		if !resume {
			verb = "spawn"
		}
		fmt.Fprintf(&b, "%s task #%d %s", verb, binary.BigEndian.Uint64(f[0]), taskName(string(f[1])))
	case e.Label == audit.Timer && len(f) == 1 && len(f[0]) == 8:
		at := time.Unix(0, int64(binary.BigEndian.Uint64(f[0]))).UTC()
		fmt.Fprintf(&b, "timer for +%v", at.Sub(start))
	default:
		b.WriteString(string(e.Label))
		for _, x := range f {
			b.WriteByte(' ')
			b.WriteString(formatField(x))
		}
	}
	b.WriteString(" -> ")
	b.WriteString(e.State)
	return b.String()
}

// formatField renders one event field: text quoted, 8 bytes as a number,
// a few other bytes in hex, anything longer by its size.
func formatField(f []byte) string {
	printable := len(f) > 0 && len(f) <= 64
	for _, c := range f {
		if c < 0x20 || c > 0x7e {
			printable = false
			break
		}
	}
	switch {
	case printable:
		return strconv.Quote(string(f))
	case len(f) == 8:
		return strconv.FormatUint(binary.BigEndian.Uint64(f), 10)
	case len(f) <= 16:
		return fmt.Sprintf("0x%x", f)
	}
	return fmt.Sprintf("<%d bytes>", len(f))
}

// taskName renders a task's name for a report.
func taskName(name string) string {
	switch name {
	case "":
		return "<root>"
	case "<runtime>":
		return name
	}
	return strconv.Quote(name)
}

// reportEffects is how many fault effects the report of a failing seed
// shows: the last ones.
const reportEffects = 50

// effectLines renders what the faults of ctx's run did, one line each, the
// last reportEffects of them, and how many there were.
func effectLines(ctx *deterministic.Context) ([]string, int) {
	if ctx == nil {
		return nil, 0
	}
	es := ctx.FaultEffects()
	busy := map[string]bool{} // sources with an effect besides the closing crash
	for _, e := range es {
		busy[e.Source] = busy[e.Source] || !closingNoOp(e)
	}
	es = slices.DeleteFunc(es, func(e deterministic.FaultEffect) bool { return closingNoOp(e) && !busy[e.Source] })
	total := len(es)
	if len(es) > reportEffects {
		es = es[len(es)-reportEffects:]
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Source + ": " + e.String()
	}
	return out, total
}

// closingNoOp reports whether e is the crash that ends the run and did
// nothing: every run ends with one per disk, so for a disk with no other
// effect (one the run did not use, or no fault touched) it says nothing
// and the report leaves it out.
func closingNoOp(e deterministic.FaultEffect) bool {
	return e.Fault == "crash" && len(e.Counts) == 0 && strings.HasSuffix(e.String(), "(the crash that ends the run)")
}

// writeEffects writes the fault-effects section of a report: nothing when
// no fault was injected.
func writeEffects(b *strings.Builder, lines []string, total int) {
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "fault effects, last %d of %d (what each fault did):\n", len(lines), total)
	for _, l := range lines {
		fmt.Fprintf(b, "  %s\n", l)
	}
}
