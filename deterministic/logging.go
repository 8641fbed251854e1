package deterministic

import (
	"log/slog"
	"os"

	"github.com/simrt/simrt/telemetry/logging"
)

// Logger returns a logger that writes to Config.Hooks.LogHandler (a text
// handler on os.Stderr when nil) with every record stamped by a telemetry/logging
// handler: the simulated time, the seed, the context's name (attribute
// task) and, for a context made with WithHost, its host (attribute node).
// Two runs of one seed log the same bytes. simrt.Logger(ctx) returns it
// for system code that holds a simrt.Context. Use the logger from tasks of
// this runtime only, like the context.
func (c *Context) Logger() *slog.Logger {
	c.rt.check()
	inner := c.rt.cfg.Hooks.LogHandler
	if inner == nil {
		// Not slog.Default's handler: the standard logger prints the wall
		// clock, so the same seed would not log the same bytes. A text
		// handler prints the record's time, which is simulated.
		inner = slog.NewTextHandler(os.Stderr, nil)
	}
	var h slog.Handler = logging.NewHandler(inner, c)
	if c.proc != nil {
		h = h.WithAttrs([]slog.Attr{slog.String("node", c.proc.n.cfg.Name)})
	} else if c.host.IsValid() {
		h = h.WithAttrs([]slog.Attr{slog.String("node", c.host.String())})
	}
	return slog.New(h)
}
