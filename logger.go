package simrt

import "log/slog"

// Logger returns the logger of ctx's runtime, stamped for ctx: in the
// simulator every record carries the simulated time, the seed, the
// context's name (attribute task) and its host (attribute node) when it has
// one, and goes to deterministic.Config.Hooks.LogHandler (simtest captures it and
// prints it in a failing seed's report); in production it carries the wall
// time and the task's name and goes to realtime.Config.Logger. Both
// runtimes' contexts have a Logger method, which this calls; a context of
// another kind (a wrapper that embeds a Context hides the method) gets
// slog.Default(), unstamped. It panics at the call if ctx is nil.
func Logger(ctx Context) *slog.Logger {
	mustContext(ctx == nil, "Logger")
	if l, ok := ctx.(interface{ Logger() *slog.Logger }); ok {
		return l.Logger()
	}
	return slog.Default()
}
