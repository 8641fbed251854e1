package realtime_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// TestMain fails the package if any test leaves a goroutine behind: Start
// must return only after every task goroutine has ended. Run with
// mainCaseEnv set, the test binary is instead a program whose main calls
// realtime.Main (see mainCases).
func TestMain(m *testing.M) {
	if c := os.Getenv(mainCaseEnv); c != "" {
		runMainCase(c)
		os.Exit(99) // realtime.Main never returns
	}
	goleak.VerifyTestMain(m)
}

// quietLogger discards the runtime's records (expected panics would
// otherwise flood the test output).
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// mainCaseEnv names the program a child test process runs, and
// mainAddrEnv passes it an address.
const (
	mainCaseEnv = "REALTIME_TEST_MAIN_CASE"
	mainAddrEnv = "REALTIME_TEST_MAIN_ADDR"
)

// mainCases are the programs of the child processes of main_child_test.go:
// each main calls realtime.Main with the root below.
var mainCases = map[string]func(ctx simrt.Context) error{
	"return": func(ctx simrt.Context) error { return nil },
	"stop": func(ctx simrt.Context) error {
		return ctx.Stop(7, time.Second)
	},
	"sigterm": func(ctx simrt.Context) error {
		realtime.StopOnSignal(ctx, time.Second)
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			return err
		}
		ctx.Stopped().Wait(ctx)
		return nil
	},
	"fail": func(ctx simrt.Context) error {
		return fmt.Errorf("root gave up: %w", errors.ErrUnsupported)
	},
	"bind": func(ctx simrt.Context) error { // the documented main, on a busy port
		l, err := ctx.Bind(netip.MustParseAddrPort(os.Getenv(mainAddrEnv)))
		if err != nil {
			return err
		}
		return l.Close()
	},
	"metrics": func(ctx simrt.Context) error {
		fmt.Fprintln(os.Stderr, "root ran")
		return nil
	},
}

func runMainCase(c string) {
	root, ok := mainCases[c]
	if !ok {
		fmt.Fprintf(os.Stderr, "no main case %q\n", c)
		os.Exit(98)
	}
	cfg := realtime.Config{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if c == "metrics" {
		cfg.MetricsAddr = os.Getenv(mainAddrEnv)
	}
	realtime.Main(cfg, root)
}
