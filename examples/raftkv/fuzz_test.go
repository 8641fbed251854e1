package main

import (
	"encoding/binary"
	"flag"
	"testing"

	"github.com/simrt/simrt/deterministic/decision"
)

var fuzzBug = flag.String("raftkv.bug", "", "FuzzRaftkv plants this bug (a name of -bug)")

// FuzzRaftkv runs one raftkv run per input, its decisions fed by the
// input's bytes (decision.NewBytes: the first 8 bytes are the seed,
// then one byte per decision, the seed's generator past the end), so that
// go test -fuzz explores the schedule, the faults the nemesis draws and
// the clients' choices guided by code coverage. It fails on any failure
// of the run; with -raftkv.bug it hunts a planted bug:
//
//	go test -run '^$' -fuzz '^FuzzRaftkv$' -fuzztime 60s -parallel 1 ./raftkv -raftkv.bug=no-term-check
//
// A failing input is saved under testdata/fuzz/FuzzRaftkv, which plain go
// test then replays (with the same -raftkv.bug).
func FuzzRaftkv(f *testing.F) {
	bs, err := parseBugs(*fuzzBug)
	if err != nil {
		f.Fatalf("-raftkv.bug: %v", err)
	}
	for seed := range uint64(4) {
		f.Add(binary.LittleEndian.AppendUint64(nil, seed))
	}
	execs := 0 // this process's executions, for the failure message
	f.Fuzz(func(t *testing.T, data []byte) {
		execs++
		d := decision.NewBytes(data)
		o := runSeed(simConfig{Seed: d.Seed(), Replay: d, Bugs: bs})
		if o.Failure != "" {
			t.Fatalf("raftkv (bugs: %v), input of %d bytes (seed %d, then %d decisions), execution %d of this process: %s",
				bs, len(data), d.Seed(), d.Len(), execs, o.Failure)
		}
	})
}
