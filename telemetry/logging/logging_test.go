package logging_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/slogtest"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/logging"
)

// withSeed gives a context the Seed method the handler looks for.
type withSeed struct {
	simrt.Context
	seed uint64
}

func (c withSeed) Seed() uint64 { return c.seed }

// run logs from a few tasks of one seed.
func run(seed uint64) string {
	var buf bytes.Buffer
	deterministic.New(deterministic.Config{Seed: seed}).Start(func(ctx *deterministic.Context) {
		var hs []*simrt.Handle[int]
		for i := range 3 {
			hs = append(hs, simrt.Spawn(ctx.Child("node"), func(ctx simrt.Context) int {
				log := slog.New(logging.NewHandler(slog.NewTextHandler(&buf, nil), withSeed{ctx, seed}))
				ctx.Sleep(time.Duration(ctx.Rand().IntN(100)) * time.Millisecond)
				log.Info("woke", "node", i)
				log.WithGroup("raft").Info("vote", "term", 1)
				return i
			}))
		}
		for _, h := range hs {
			h.Await(ctx)
		}
	})
	return buf.String()
}

func TestSameSeedSameLogBytes(t *testing.T) {
	a, b := run(7), run(7)
	if a != b {
		t.Fatalf("two runs of seed 7 logged differently:\n%s\n---\n%s", a, b)
	}
	if run(8) == a {
		t.Error("seeds 7 and 8 logged the same bytes")
	}
	first := strings.SplitN(a, "\n", 2)[0]
	if !strings.HasPrefix(first, "time=1970-01-01T00:00:00.") || !strings.Contains(first, " seed=7 task=node ") {
		t.Errorf("first line %q lacks simulated time, seed or task", first)
	}
	if !strings.Contains(a, "seed=7 task=node raft.term=1") {
		t.Errorf("seed and task are not outside the group:\n%s", a)
	}
}

// wallClock is a production-like source.
type wallClock struct{ name string }

func (w wallClock) Now() time.Time   { return time.Now() }
func (w wallClock) Name() simrt.Name { return simrt.Name{Label: w.name} }

func TestHandlerConformsToSlog(t *testing.T) {
	var buf bytes.Buffer
	newHandler := func(*testing.T) slog.Handler {
		buf.Reset()
		return logging.NewHandler(slog.NewJSONHandler(&buf, nil), wallClock{"api"})
	}
	result := func(t *testing.T) map[string]any {
		line := bytes.TrimSpace(buf.Bytes())
		m, err := parseJSON(line)
		if err != nil {
			t.Fatal(err)
		}
		delete(m, "task") // the stamp is not part of the record
		return m
	}
	slogtest.Run(t, newHandler, result)
}

func ExampleNewHandler() {
	deterministic.New(deterministic.Config{Seed: 7}).Start(func(ctx *deterministic.Context) {
		ctx.Sleep(1250 * time.Millisecond)
		node := ctx.Child("node_2")
		log := slog.New(logging.NewHandler(slog.NewTextHandler(os.Stdout, nil), node))
		log.Info("elected", "term", 3)
	})
	fmt.Println("done")
	// Output:
	// time=1970-01-01T00:00:01.250Z level=INFO msg=elected seed=7 task=node_2 term=3
	// done
}
