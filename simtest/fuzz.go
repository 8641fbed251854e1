package simtest

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
)

// Fuzz makes f a fuzz test of root over the simulator's decision stream:
// each input is one run, its bytes fed to the stream through
// decision.Bytes (the first 8 bytes are the seed, then one byte per
// decision: schedule, yields, faults, draws, Buggify; past the input's end
// the seed decides). So
//
//	go test -fuzz '^FuzzX$' ./pkg
//
// explores schedules and faults guided by code coverage, and an input it
// finds failing is saved, as every Go fuzzer finding is, as an ordinary
// corpus file in testdata/fuzz/FuzzX/ that plain go test runs again. Fuzz
// adds four seed inputs (seeds 0 to 3, no decisions), after those the
// caller added with f.Add: go test numbers them all, so after two of the
// caller's, Fuzz's are seed#2 to seed#5, and a replay line names them so. cfg.Seed and
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
	// The seed inputs, as go test names them (seed#0, seed#1, ...): the
	// ones the caller added before this call, then Fuzz's own. Without the
	// caller's (addedInputs cannot tell), a seed input's name is unknown.
	seeds, known := addedInputs(f)
	for seed := range uint64(4) {
		in := binary.LittleEndian.AppendUint64(nil, seed)
		seeds = append(seeds, in)
		f.Add(in)
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
		d := decision.NewBytes(data)
		c := cfg
		c.Seed, c.Replay = d.Seed(), d
		if c.Hooks.EventLog == 0 {
			c.Hooks.EventLog = st.events
		}
		name := t.Name()
		seed := slices.IndexFunc(seeds, func(s []byte) bool { return bytes.Equal(s, data) })
		if !known && seed >= 0 {
			seed = unknownSeed
		}
		if fl := simulate(t, name, fuzzReplay(name, fuzzing, seed, len(data)), false, c, root, nil); fl != nil {
			fl.events = lastEvents(fl.events, st.events)
			t.Errorf("%s", fl.report(name))
			if fl.fatal {
				t.FailNow()
			}
		}
	})
}

// unknownSeed is the seed index of an input that is one of Fuzz's own
// seed inputs when the caller's seed inputs could not be counted.
const unknownSeed = -2

// addedInputs returns the seed inputs added to f so far (by f.Add, before
// Fuzz), in order, and whether it could read them. go test numbers the
// seed inputs from 0 over every f.Add, so Fuzz's own are numbered after
// the caller's. testing.F does not export its seed corpus: it is read by
// reflection, and a testing package laid out otherwise gives false.
func addedInputs(f *testing.F) (inputs [][]byte, ok bool) {
	defer func() {
		if recover() != nil {
			inputs, ok = nil, false
		}
	}()
	corpus := reflect.ValueOf(f).Elem().FieldByName("corpus")
	if corpus.Kind() != reflect.Slice {
		return nil, false
	}
	for i := range corpus.Len() {
		var in []byte // nil: not one []byte (Fuzz's target takes one)
		if vals := corpus.Index(i).FieldByName("Values"); vals.Kind() == reflect.Slice && vals.Len() == 1 {
			if v := vals.Index(0).Elem(); v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				in = bytes.Clone(v.Bytes())
				if in == nil {
					in = []byte{}
				}
			}
		}
		inputs = append(inputs, in)
	}
	return inputs, true
}

// fuzzReplay is the replay line of a failing fuzz input named name, of n
// bytes; seed is the index of the seed input (f.Add) it is, -1 if none,
// or unknownSeed. go test -fuzz saves an input it generated, never a seed
// input or a corpus file (it names the input with the test alone, and
// prints "failure while testing seed corpus entry" with the entry's name):
// a seed input is rerun by its name.
func fuzzReplay(name string, fuzzing bool, seed, n int) string {
	fuzzTest, _, _ := strings.Cut(name, "/")
	switch {
	case fuzzing && seed >= 0:
		return strings.TrimSuffix(replayCommand(fuzzTest+"/seed#"+strconv.Itoa(seed), 0), " -simrt.seed=0")
	case fuzzing && seed == unknownSeed:
		return fmt.Sprintf("a seed input of %s: go test names it (failure while testing seed corpus entry: %s/seed#N); rerun it with %s", fuzzTest, fuzzTest,
			strings.TrimSuffix(replayCommand(fuzzTest+"/seed#N", 0), " -simrt.seed=0"))
	case fuzzing:
		return fmt.Sprintf("go test -fuzz saves this input (%d bytes) to testdata/fuzz/%s/ and prints the go test -run command that reruns it "+
			"(unless it is already there: then go test names it, failure while testing seed corpus entry)", n, fuzzTest)
	}
	return strings.TrimSuffix(replayCommand(name, 0), " -simrt.seed=0")
}
