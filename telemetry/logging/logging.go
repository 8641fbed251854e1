// Package logging is an slog.Handler for simrt tasks: it stamps each record
// with the runtime's time and the name of the task's context, and in a
// simulation with its seed. In the simulator the time is simulated, so two
// runs of one seed write byte-identical logs; in the production runtime the
// same handler stamps the wall clock. System code builds its logger the
// same way on both.
//
// Every runtime context already has a logger built on this handler:
// simrt.Logger(ctx) returns it, writing to the runtime's configured handler
// (deterministic.Config.Hooks.LogHandler, realtime.Config.Logger); the
// simulator's also stamps node, the context's host when it has one, and
// simtest captures its records into the report of a failing seed. From a
// task:
//
//	simrt.Logger(ctx).Info("elected", "term", 3)
//	// time=1970-01-01T00:00:01.250Z level=INFO msg=elected seed=7 task=node_2 node=10.0.0.2 term=3
//
// To send a context's records elsewhere, build the logger directly:
//
//	log := slog.New(logging.NewHandler(slog.NewTextHandler(os.Stderr, nil), ctx))
package logging

import (
	"context"
	"log/slog"
	"time"

	"github.com/simrt/simrt"
)

// Source is what a Handler stamps records from: a clock and a name. Every
// simrt.Context is one.
type Source interface {
	Now() time.Time
	Name() simrt.Name
}

// seeded is implemented by sources that belong to a seeded simulation.
type seeded interface{ Seed() uint64 }

// Handler stamps records from a Source and passes them to an inner
// handler. Make one per task context (the task name is the context's
// label, fixed when the handler is made); it may then be used from that
// task only, like the context itself.
type Handler struct {
	inner slog.Handler
	src   Source
}

var _ slog.Handler = (*Handler)(nil)

// NewHandler returns a handler that sets each record's time to src.Now(),
// adds "seed" (when src has a Seed method, as simulator contexts do) and
// "task" (src.Name().Label, "root" for the root context) before the
// record's own attributes, and hands the record to inner.
func NewHandler(inner slog.Handler, src Source) *Handler {
	var attrs []slog.Attr
	if s, ok := src.(seeded); ok {
		attrs = append(attrs, slog.Uint64("seed", s.Seed()))
	}
	task := src.Name().Label
	if task == "" {
		task = "root"
	}
	attrs = append(attrs, slog.String("task", task))
	return &Handler{inner: inner.WithAttrs(attrs), src: src}
}

// Enabled implements slog.Handler.Enabled by asking the inner handler.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

// Handle implements slog.Handler.Handle: the record's time becomes the
// runtime's time. A record with a zero time (one that asks for no time)
// keeps it.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if !r.Time.IsZero() {
		r.Time = h.src.Now()
	}
	return h.inner.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.WithAttrs.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(attrs), src: h.src}
}

// WithGroup implements slog.Handler.WithGroup; the stamped seed and task
// stay outside the group.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), src: h.src}
}
