package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"go.etcd.io/raft/v3"
)

// logger writes a run's events, stamped with simulated time, when the run
// is verbose; otherwise it discards them at the cost of a nil check.
type logger struct {
	w     io.Writer // nil: discard
	start time.Time
	// global, when set, stamps every line with the global simulated time:
	// a node's own clock may be offset, drifting or stepped, and lines
	// stamped with it would be out of order.
	global simrt.Clock
}

func (l *logger) enabled() bool { return l != nil && l.w != nil }

// printf writes one line stamped with the simulated time since the start.
func (l *logger) printf(c simrt.Clock, format string, args ...any) {
	if !l.enabled() {
		return
	}
	if l.global != nil {
		c = l.global
	}
	fmt.Fprintf(l.w, "%9.3fs  %s\n", c.Now().Sub(l.start).Seconds(), fmt.Sprintf(format, args...))
}

// raft returns a raft.Logger for node id. raft's own messages are
// discarded (the node logs what matters); Fatal and Panic panic, so that a
// raft invariant failure fails the run instead of exiting the process.
func (l *logger) raft(id uint64) raft.Logger { return raftLogger{id: id} }

// raftLogger adapts raft's logging: everything below Fatal is dropped.
type raftLogger struct{ id uint64 }

var _ raft.Logger = raftLogger{}

// Debug implements raft.Logger.
func (raftLogger) Debug(...any) {}

// Debugf implements raft.Logger.
func (raftLogger) Debugf(string, ...any) {}

// Info implements raft.Logger.
func (raftLogger) Info(...any) {}

// Infof implements raft.Logger.
func (raftLogger) Infof(string, ...any) {}

// Warning implements raft.Logger.
func (raftLogger) Warning(...any) {}

// Warningf implements raft.Logger.
func (raftLogger) Warningf(string, ...any) {}

// Error implements raft.Logger.
func (raftLogger) Error(...any) {}

// Errorf implements raft.Logger.
func (raftLogger) Errorf(string, ...any) {}

// Fatal implements raft.Logger: it panics.
func (l raftLogger) Fatal(v ...any) { panic(fmt.Sprintf("raft n%d: %s", l.id, fmt.Sprint(v...))) }

// Fatalf implements raft.Logger: it panics.
func (l raftLogger) Fatalf(format string, v ...any) {
	panic(fmt.Sprintf("raft n%d: %s", l.id, fmt.Sprintf(format, v...)))
}

// Panic implements raft.Logger.
func (l raftLogger) Panic(v ...any) { panic(fmt.Sprintf("raft n%d: %s", l.id, fmt.Sprint(v...))) }

// Panicf implements raft.Logger.
func (l raftLogger) Panicf(format string, v ...any) {
	panic(fmt.Sprintf("raft n%d: %s", l.id, fmt.Sprintf(format, v...)))
}

// slogHandler writes the run's slog records (the nemesis's faults, among
// them) into the event log, stamped like its other lines. Without a
// writer it is disabled, and records cost nothing.
type slogHandler struct {
	l     *logger
	attrs []slog.Attr
}

// Enabled reports whether the event log is written.
func (h slogHandler) Enabled(context.Context, slog.Level) bool { return h.l.enabled() }

// Handle writes one record: its message and attributes.
func (h slogHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	fmt.Fprintf(h.l.w, "%9.3fs  %s\n", r.Time.Sub(h.l.start).Seconds(), b.String())
	return nil
}

// WithAttrs returns the handler with attrs added to every record.
func (h slogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return slogHandler{l: h.l, attrs: append(slices.Clip(h.attrs), attrs...)}
}

// WithGroup returns the handler: groups are flattened.
func (h slogHandler) WithGroup(string) slog.Handler { return h }
