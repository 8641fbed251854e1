package logging_test

import (
	"bytes"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// syncBuffer is a bytes.Buffer safe for the production runtime's
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// In the simulator, simrt.Logger stamps each record with the simulated
// time, the seed, the task and the node (the context's host), and writes to
// Config.Hooks.LogHandler.
func TestLoggerInSimulation(t *testing.T) {
	var buf syncBuffer
	cfg := deterministic.Config{Seed: 9, Hooks: deterministic.Hooks{LogHandler: slog.NewTextHandler(&buf, nil)}}
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		node := ctx.WithHost(netip.MustParseAddr("10.0.0.2"))
		simrt.Spawn(node.Child("raft"), func(ctx simrt.Context) int {
			ctx.Sleep(1500 * time.Millisecond)
			simrt.Logger(ctx).Info("elected", "term", 3)
			return 0
		}).Await(ctx)
		simrt.Logger(ctx).Warn("done")
	})
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"time=1970-01-01T00:00:01.501Z level=INFO msg=elected seed=9 task=raft node=10.0.0.2 term=3",
		"time=1970-01-01T00:00:01.502Z level=WARN msg=done seed=9 task=root",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// In production, simrt.Logger stamps the wall time and the task's name and
// writes to realtime.Config.Logger.
func TestLoggerInProduction(t *testing.T) {
	var buf syncBuffer
	before := time.Now() // wall clock: the production runtime's time is the point
	realtime.New(realtime.Config{Logger: slog.New(slog.NewTextHandler(&buf, nil))}).Start(func(ctx simrt.Context) {
		simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			simrt.Logger(ctx).Info("hello", "n", 1)
			return 0
		}).Await(ctx)
	})
	line := strings.TrimSpace(buf.String())
	if !strings.Contains(line, " level=INFO msg=hello task=worker n=1") || strings.Contains(line, "seed=") {
		t.Fatalf("log %q", line)
	}
	stamp, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("record time %q (%v) is not the wall clock of the run", stamp, err)
	}
}

// A context that is not a runtime's own (a wrapper that embeds one) gets
// slog.Default, unstamped, rather than a panic.
func TestLoggerOfAWrapperIsTheDefault(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		if got := simrt.Logger(withSeed{ctx, 1}); got != slog.Default() {
			t.Errorf("Logger of a wrapper = %v, want slog.Default()", got)
		}
	})
}
