package deterministic_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A task's panic is logged as production logs it (realtime's "task
// panicked" record with the task, the panic and its stack), caught or not:
// uncaught, Start re-raises the bare value, and the record is what names
// the task and shows where it panicked.
func TestTaskPanicIsLoggedWithTaskNameAndStack(t *testing.T) {
	for _, catch := range []bool{false, true} {
		var buf bytes.Buffer
		cfg := deterministic.Config{Seed: 3, CatchPanics: catch, Hooks: deterministic.Hooks{LogHandler: slog.NewTextHandler(&buf, nil)}}
		var got any
		func() {
			defer func() { got = recover() }()
			deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
				simrt.Spawn(ctx.Child("crasher"), func(ctx simrt.Context) int { crash(); return 0 }).Await(ctx)
			})
		}()
		if want := any(nil); catch && got != want || !catch && got != "boom" {
			t.Errorf("CatchPanics %v: Start panicked with %v", catch, got)
		}
		s := buf.String()
		for _, want := range []string{"level=ERROR", `msg="task panicked"`, "seed=3", "task=crasher", "panic=boom", "deterministic_test.crash"} {
			if !strings.Contains(s, want) {
				t.Errorf("CatchPanics %v: log lacks %q:\n%s", catch, want, s)
			}
		}
	}
}

func crash() { panic("boom") }

// The panic record keeps one seed's log the same bytes every run: the
// stack it carries leaves out goroutine numbers and argument words.
func TestTaskPanicLogIsDeterministic(t *testing.T) {
	run := func() string {
		var buf bytes.Buffer
		cfg := deterministic.Config{Seed: 5, CatchPanics: true, Hooks: deterministic.Hooks{LogHandler: slog.NewTextHandler(&buf, nil)}}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
			for range 3 { // a few goroutines more on the second run's numbering
				simrt.Spawn(ctx.Child("crasher"), func(ctx simrt.Context) int { crash(); return 0 }).Await(ctx)
			}
		})
		return buf.String()
	}
	first, second := run(), run()
	if first != second || !strings.Contains(first, "goroutine N") {
		t.Errorf("one seed logged different panic records:\n%s\n---\n%s", first, second)
	}
}
