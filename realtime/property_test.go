package realtime_test

import (
	"bytes"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// syncBuffer is a bytes.Buffer that tasks on several goroutines may log to.
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

// TestFailedPropertyIsLoggedNotPanicked: in production a false Always, a
// false AlwaysOrUnreachable and a reached Unreachable are each logged at
// error level with their call site and details; nothing panics and the task
// carries on. Sometimes and Reachable log nothing.
func TestFailedPropertyIsLoggedNotPanicked(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var line int
	finished := false
	realtime.New(realtime.Config{Logger: log}).Start(func(ctx simrt.Context) {
		h := simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) int {
			simrt.Always(ctx, true, "holds")
			_, _, line, _ = runtime.Caller(0)
			simrt.Always(ctx, false, "balance never negative", "balance", -3)
			simrt.AlwaysOrUnreachable(ctx, false, "quorum intact")
			simrt.Unreachable(ctx, "impossible branch")
			simrt.Sometimes(ctx, false, "a goal")
			simrt.Reachable(ctx, "another goal")
			return 7
		})
		if v, err := h.Await(ctx); v != 7 || err != nil {
			t.Errorf("Await = %d, %v; want 7, nil", v, err)
		}
		finished = true
	})
	if !finished {
		t.Fatal("the root did not finish")
	}
	out := buf.String()
	if n := strings.Count(out, "simrt: property failed"); n != 3 {
		t.Errorf("logged %d failed properties, want 3:\n%s", n, out)
	}
	for _, want := range []string{
		"level=ERROR",
		`property=Always message="balance never negative" site=realtime/property_test.go:` + strconv.Itoa(line+1) + " balance=-3",
		`property=AlwaysOrUnreachable message="quorum intact"`,
		`property=Unreachable message="impossible branch"`,
		"task=checker",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"holds", "a goal", "another goal"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("log mentions %q, which did not fail:\n%s", unwanted, out)
		}
	}
}

func TestBuggifyIsFalseInProduction(t *testing.T) {
	realtime.New(realtime.Config{Logger: quietLogger()}).Start(func(ctx simrt.Context) {
		for i := range 1000 {
			if simrt.Buggify(ctx, "site"+strconv.Itoa(i%3)) {
				t.Fatalf("call %d fired in production", i)
			}
		}
	})
}

// BenchmarkAlwaysHolds is the production cost of a property that holds.
func BenchmarkAlwaysHolds(b *testing.B) {
	realtime.New(realtime.Config{Logger: quietLogger()}).Start(func(ctx simrt.Context) {
		for i := 0; b.Loop(); i++ {
			simrt.Always(ctx, i >= 0, "i is never negative")
		}
	})
}

// BenchmarkBuggify is the production cost of a Buggify site.
func BenchmarkBuggify(b *testing.B) {
	n := 0
	realtime.New(realtime.Config{Logger: quietLogger()}).Start(func(ctx simrt.Context) {
		for b.Loop() {
			if simrt.Buggify(ctx, "site") {
				n++
			}
		}
	})
	if n != 0 {
		b.Fatal("Buggify fired in production")
	}
}
