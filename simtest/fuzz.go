package simtest

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
)

// Fuzz makes f a fuzz test of root over the simulator's decision stream:
// each input is one run, its bytes fed to the stream through
// deterministic.Bytes (the first 8 bytes are the seed, then one byte per
// decision: schedule, yields, faults, draws, Buggify; past the input's end
// the seed decides). So
//
//	go test -fuzz '^FuzzX$' ./pkg
//
// explores schedules and faults guided by code coverage, and an input it
// finds failing is saved, as every Go fuzzer finding is, as an ordinary
// corpus file in testdata/fuzz/FuzzX/ that plain go test runs again. Fuzz
// adds four seed inputs (seeds 0 to 3, no decisions). cfg.Seed and
// cfg.Replay are the input's. A failing input is reported as by Run, with
// the command that reruns it.
//
// While fuzzing, the event log is off unless -simrt.events asks for it
// (the report of a finding then lacks the last events; rerunning its
// corpus file shows them). The input decides the seed, so -simrt.seed,
// -simrt.seeds and -simrt.shard do not apply, nor do -simrt.trace,
// -simrt.checkdeterminism and the stream flags (-simrt.replay, -simrt.record,
// -simrt.shrink, -simrt.inevitable: the input is the stream). One byte per decision resolves probabilities to
// 1/256: a fault or Buggify site rarer than that still happens for byte 0,
// which helps the fuzzer reach it. Call Fuzz from the fuzz test's
// goroutine, once.
func Fuzz(f *testing.F, cfg deterministic.Config, root Func) {
	f.Helper()
	mustStart(f, "Fuzz", cfg, root == nil)
	var seeds [][]byte // go test names them seed#0, seed#1, ...
	for seed := range uint64(4) {
		seeds = append(seeds, binary.LittleEndian.AppendUint64(nil, seed))
		f.Add(seeds[seed])
	}
	fuzzing := false
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		fuzzing = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st := mustSettings(t)
		if st.events == autoEvents {
			st.events = reportEvents
			if fuzzing {
				st.events = 0
			}
		}
		d := deterministic.NewBytes(data)
		c := cfg
		c.Seed, c.Replay = d.Seed(), d
		if c.EventLog == 0 {
			c.EventLog = st.events
		}
		name := t.Name()
		if fl := simulate(t, name, c, root, nil); fl != nil {
			fl.events = lastEvents(fl.events, st.events)
			t.Errorf("%s", withReplay(fl.report(name), fuzzReplay(name, fuzzing, slices.IndexFunc(seeds, func(s []byte) bool { return bytes.Equal(s, data) }), len(data))))
			if fl.fatal {
				t.FailNow()
			}
		}
	})
}

// fuzzReplay is the replay line of a failing fuzz input named name, of n
// bytes; seed is the index of the seed input Fuzz added that it is, or -1.
// go test -fuzz saves an input it generated, never a seed input (it names
// the input with the test alone): the seed input is rerun by its name.
func fuzzReplay(name string, fuzzing bool, seed, n int) string {
	fuzzTest, _, _ := strings.Cut(name, "/")
	if fuzzing && seed >= 0 {
		return strings.TrimSuffix(replayCommand(fuzzTest+"/seed#"+strconv.Itoa(seed), 0), " -simrt.seed=0")
	}
	if fuzzing {
		return fmt.Sprintf("go test -fuzz saves this input (%d bytes) to testdata/fuzz/%s/ and prints the go test -run command that reruns it", n, fuzzTest)
	}
	return strings.TrimSuffix(replayCommand(name, 0), " -simrt.seed=0")
}
