package audit_test

import (
	"encoding/binary"
	"fmt"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// Reading a run's event log: the spawns, by the constants of this package.
func Example() {
	cfg := deterministic.Config{Hooks: deterministic.Hooks{EventLog: -1}}
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("worker"), func(simrt.Context) int { return 1 }).Await(ctx)
		for _, e := range ctx.Auditor().Log().Events() {
			if e.Label == audit.Spawn {
				fmt.Printf("spawn of task #%d %q\n", binary.BigEndian.Uint64(e.Fields[0]), e.Fields[1])
			}
		}
	})
	// Output:
	// spawn of task #1 "worker"
}
