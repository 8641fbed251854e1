package realtime_test

import (
	"io"
	"log/slog"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: Start
// must return only after every task goroutine has ended.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// quietLogger discards the runtime's records (expected panics would
// otherwise flood the test output).
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
