// Command greet is the production program of docs/PRODUCTION.md: the greet
// service on the realtime runtime.
package main

import (
	"log/slog"
	"net/netip"
	"os"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"

	"github.com/simrt/simrt/examples/greet"
)

func main() {
	cfg := realtime.Config{
		StorageDirectory: "/var/lib/greet", // default: a new directory under os.TempDir()
		MetricsAddr:      ":9090",          // GET /metrics; default: off
		Logger:           slog.New(slog.NewJSONHandler(os.Stderr, nil)),
	}
	realtime.New(cfg).Start(func(ctx simrt.Context) {
		// SIGINT or SIGTERM calls ctx.Stop(128+signal, 10s): Serve sees Stopped fire,
		// stops accepting and returns.
		realtime.StopOnSignal(ctx, 10*time.Second)
		l, err := ctx.Bind(netip.MustParseAddrPort("0.0.0.0:7000"))
		if err != nil {
			realtime.From(ctx).Logger().Error("bind", "err", err)
			return
		}
		if err := greet.Serve(ctx.Child("greet"), l); err != nil {
			realtime.From(ctx).Logger().Error("serve", "err", err)
		}
	})
	// Start returned: every task has unwound, every connection and blob is closed.
}
