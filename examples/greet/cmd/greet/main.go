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
		// GET /metrics, on loopback only (":9090" would serve every interface);
		// default: off.
		MetricsAddr: "127.0.0.1:9090",
		Logger:      slog.New(slog.NewJSONHandler(os.Stderr, nil)),
	}
	// Main logs a setup error (storage, a busy metrics port) or the root's error
	// and exits 1; otherwise it exits with the Stop value: 130 after SIGINT, 143
	// after SIGTERM, 0 if nobody stopped. Every task has unwound and every
	// connection and blob is closed by then.
	realtime.Main(cfg, func(ctx simrt.Context) error {
		// SIGINT or SIGTERM calls ctx.Stop(128+signal, 10s): Serve sees Stopped fire,
		// stops accepting and returns.
		realtime.StopOnSignal(ctx, 10*time.Second)
		l, err := ctx.Bind(netip.MustParseAddrPort("0.0.0.0:7000"))
		if err != nil {
			return err // says which address and why: "simrt: bind failed: listen tcp ..."
		}
		return greet.Serve(ctx.Child("greet"), l)
	})
}
