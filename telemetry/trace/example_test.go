package trace_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/trace"
)

// Turn on the whole event log, run, and write the trace; open the file at
// ui.perfetto.dev.
func ExampleWrite() {
	var log []audit.Event
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Second)
			return 0
		}).Await(ctx)
		log = ctx.Auditor().Log().Events()
	})
	var out bytes.Buffer
	if err := trace.Write(&out, log, trace.Options{Title: "seed 1"}); err != nil {
		panic(err)
	}
	var f trace.File
	json.Unmarshal(out.Bytes(), &f)
	for _, e := range f.TraceEvents {
		if e.Ph == "X" || e.Ph == "b" || e.Ph == "e" {
			fmt.Printf("%s %-14q at %8.1f µs\n", e.Ph, e.Name, e.Ts)
		}
	}
	// Output:
	// X "root #0"      at      0.0 µs
	// X "worker #1"    at   1000.0 µs
	// b "timer +1s"    at   1500.0 µs
	// e "timer +1s"    at 1001000.0 µs
	// X "worker #1"    at 1001000.0 µs
	// X "root #0"      at 1002000.0 µs
}
