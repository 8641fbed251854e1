package realtime

import (
	"context"
	"log/slog"
	goruntime "runtime"

	"github.com/simrt/simrt"
)

// AssertProperty implements simrt.Asserter; call simrt.Always, Sometimes,
// Reachable, Unreachable or AlwaysOrUnreachable instead. A property that
// holds costs a branch. A false Always or AlwaysOrUnreachable, or a
// reached Unreachable, is logged at error level through Context.Logger
// (Config.Logger) with the property's kind, message, call site and
// details, every time it happens; nothing panics and the program carries
// on. Sometimes and Reachable do nothing.
func (c *Context) AssertProperty(kind simrt.PropertyKind, cond bool, message string, details []any) {
	if kind.Fails(cond) {
		c.logProperty(kind, message, details)
	}
}

// propertyCallerSkip is the frames from logProperty's runtime.Callers to
// the user's call: Callers, logProperty, AssertProperty, the simrt
// function.
const propertyCallerSkip = 4

func (c *Context) logProperty(kind simrt.PropertyKind, message string, details []any) {
	var site simrt.CallSite
	var pc [1]uintptr
	if goruntime.Callers(propertyCallerSkip, pc[:]) == 1 {
		f, _ := goruntime.CallersFrames(pc[:]).Next()
		site = simrt.CallSite{File: f.File, Line: f.Line, Function: f.Function}
	}
	l := c.Logger()
	if !l.Enabled(context.Background(), slog.LevelError) {
		return
	}
	args := make([]any, 0, 6+len(details))
	args = append(args, slog.String("property", kind.String()), slog.String("message", message),
		slog.String("site", site.String()))
	args = append(args, details...)
	l.Error("simrt: property failed", args...)
}

// BuggifySite implements simrt.Asserter; call simrt.Buggify instead. In
// production every site is off: it reports false.
func (c *Context) BuggifySite(string) bool { return false }
