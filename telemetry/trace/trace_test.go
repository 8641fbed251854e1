package trace_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
	"github.com/simrt/simrt/telemetry/trace"
)

// simulate runs a small system with the whole event log on.
func simulate(t *testing.T, seed uint64) []audit.Event {
	t.Helper()
	var log []audit.Event
	deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
		defer func() { log = ctx.Auditor().Log().Events() }()
		ch := simrt.NewChan[int](1)
		var hs []*simrt.Handle[int]
		for range 3 {
			hs = append(hs, simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
				for range 3 {
					ctx.Sleep(time.Duration(1+ctx.Rand().IntN(5)) * time.Millisecond)
					ch.Send(ctx, 1)
				}
				return 0
			}))
		}
		for range 9 {
			ch.Recv(ctx)
		}
		for _, h := range hs {
			h.Await(ctx)
		}
	})
	return log
}

// decode parses a trace file and checks the structure every viewer needs:
// named tracks, slices that do not overlap on a track, async slices and
// flows that begin and end.
func decode(t *testing.T, data []byte) trace.File {
	t.Helper()
	var f trace.File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	named := map[int]bool{}
	process := false
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			named[e.Tid] = true
		}
		if e.Ph == "M" && e.Name == "process_name" {
			process = true
		}
	}
	if !process {
		t.Error("no process_name")
	}
	lastEnd := map[int]float64{}
	begins := map[uint64]trace.Event{}
	flows := map[uint64][]string{}
	for _, e := range f.TraceEvents {
		if e.Pid != 1 {
			t.Errorf("event %+v: pid %d", e, e.Pid)
		}
		switch e.Ph {
		case "M":
		case "X":
			if e.Dur <= 0 {
				t.Errorf("slice %+v has no duration", e)
			}
			if e.Ts < lastEnd[e.Tid] {
				t.Errorf("slice %+v overlaps the previous slice on its track (ends %v)", e, lastEnd[e.Tid])
			}
			lastEnd[e.Tid] = e.Ts + e.Dur
		case "i":
			if e.S != "t" {
				t.Errorf("instant %+v: scope %q", e, e.S)
			}
		case "b":
			begins[e.ID] = e
		case "e":
			b, ok := begins[e.ID]
			if !ok || b.Name != e.Name || e.Ts < b.Ts {
				t.Errorf("async end %+v does not match a begin (%+v)", e, b)
			}
			delete(begins, e.ID)
		case "s", "f":
			flows[e.ID] = append(flows[e.ID], e.Ph)
		default:
			t.Errorf("unknown phase in %+v", e)
		}
		if e.Ph != "M" && e.Ph != "b" && e.Ph != "e" && !named[e.Tid] {
			t.Errorf("event %+v is on an unnamed track", e)
		}
	}
	if len(begins) > 0 {
		t.Errorf("%d async slices never end", len(begins))
	}
	for id, phs := range flows {
		if len(phs) != 2 || phs[0] != "s" || phs[1] != "f" {
			t.Errorf("flow %d has phases %v, want [s f]", id, phs)
		}
	}
	return f
}

func count(f trace.File, ph, cat string) int {
	n := 0
	for _, e := range f.TraceEvents {
		if e.Ph == ph && (cat == "" || e.Cat == cat) {
			n++
		}
	}
	return n
}

func TestTraceOfSimulationParses(t *testing.T) {
	log := simulate(t, 1)
	var buf bytes.Buffer
	if err := trace.Write(&buf, log, trace.Options{Title: "seed 1"}); err != nil {
		t.Fatal(err)
	}
	f := decode(t, buf.Bytes())
	if got := count(f, "M", ""); got != 1+2*5 { // process, then name and order of executor, root, 3 workers
		t.Errorf("%d metadata events, want 11", got)
	}
	if got := count(f, "s", "spawn"); got != 3 {
		t.Errorf("%d spawn flows, want 3", got)
	}
	if got := count(f, "b", "timer"); got != 9 {
		t.Errorf("%d timers, want 9", got)
	}
	if got := count(f, "X", "task"); got < 10 {
		t.Errorf("only %d resumes", got)
	}
	var again bytes.Buffer
	trace.Write(&again, simulate(t, 1), trace.Options{Title: "seed 1"})
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two runs of one seed wrote different traces")
	}
}

func TestNetworkSendsBecomeFlows(t *testing.T) {
	at := time.Unix(0, 0).UTC()
	resume := func(i uint64, id uint64, name string) audit.Event {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], id)
		return audit.Event{Index: i, Time: at, Task: "<runtime>", Label: audit.ProcessTask, Fields: [][]byte{b[:], []byte(name)}}
	}
	ev := func(i uint64, task string, label audit.Label, fields ...string) audit.Event {
		e := audit.Event{Index: i, Time: at, Task: task, Label: label}
		for _, f := range fields {
			e.Fields = append(e.Fields, []byte(f))
		}
		return e
	}
	log := []audit.Event{
		resume(0, 1, "client"),
		ev(1, "client", audit.SendAttempt, "10.0.0.2:80", "ping"),
		ev(2, "client", "send_success", "10.0.0.2:80"),
		ev(3, "client", audit.SendAttempt, "10.0.0.2:80", "pong?"),
	}
	at = at.Add(time.Millisecond)
	log = append(log,
		resume(4, 2, "server"),
		ev(5, "server", audit.RecvSuccess, "10.0.0.1:4000", "pi"),
		ev(6, "server", audit.RecvSuccess, "10.0.0.1:4000", "ngpo"),
		ev(7, "server", audit.WriteAt, "p", "blob", "\x00\x00\x00\x00\x00\x00\x00\x00", "data", "\x00"),
	)
	var buf bytes.Buffer
	if err := trace.Write(&buf, log, trace.Options{}); err != nil {
		t.Fatal(err)
	}
	f := decode(t, buf.Bytes())
	var starts, ends []trace.Event
	for _, e := range f.TraceEvents {
		if e.Cat == "network" && e.Ph == "s" {
			starts = append(starts, e)
		}
		if e.Cat == "network" && e.Ph == "f" {
			ends = append(ends, e)
		}
	}
	if len(starts) != 2 || len(ends) != 2 {
		t.Fatalf("%d flow starts and %d ends, want 2 and 2", len(starts), len(ends))
	}
	if starts[0].Tid != 2 || ends[0].Tid != 3 || starts[1].Ts <= starts[0].Ts {
		t.Errorf("flows %+v -> %+v: want client (tid 2) to server (tid 3), second from the second send", starts, ends)
	}
	if count(f, "i", "storage") != 1 {
		t.Error("write_at is not a storage event")
	}
}

func TestEmptyLog(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Write(&buf, nil, trace.Options{}); err != nil {
		t.Fatal(err)
	}
	decode(t, buf.Bytes())
}
