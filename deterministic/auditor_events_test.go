package deterministic

import (
	"fmt"
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// Encode, Stop and Stopped are audited events, as in the reference:
// "encode" and "stopped" with no field, "stop" with the value as four
// big-endian bytes. Each logged event's state is exactly what the generic
// event path hashes for its label and fields on top of the state before it.
func TestAuditorRecordsEncodeStopStopped(t *testing.T) {
	run := func(value int) (state string, events []audit.Event) {
		New(Config{Hooks: Hooks{EventLog: -1}}).Start(func(ctx *Context) {
			ctx.Encode()
			if err := ctx.Stop(value, 0); err != nil {
				t.Errorf("Stop: %v", err)
			}
			ctx.Stopped()
			state, events = ctx.Auditor().State(), ctx.Auditor().Log().Events()
		})
		return state, events
	}
	state, events := run(-2)
	want := []struct {
		label  audit.Label
		fields [][]byte
	}{
		{audit.Encode, nil},
		{audit.Stop, [][]byte{{0xff, 0xff, 0xff, 0xfe}}},
		{audit.Stopped, nil},
	}
	var got []audit.Event
	var before []string // the state before each event in got
	for i, e := range events {
		switch e.Label {
		case audit.Encode, audit.Stop, audit.Stopped:
			got = append(got, e)
			if i == 0 {
				before = append(before, "00000000")
			} else {
				before = append(before, events[i-1].State)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("audited %d of encode/stop/stopped, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.Label != w.label || len(e.Fields) != len(w.fields) {
			t.Fatalf("event %d = %v, want %s with %d fields", i, e, w.label, len(w.fields))
		}
		for j := range w.fields {
			if string(e.Fields[j]) != string(w.fields[j]) {
				t.Errorf("%s field %d = %x, want %x", e.Label, j, e.Fields[j], w.fields[j])
			}
		}
		var d uint32
		fmt.Sscanf(before[i], "%08x", &d)
		replay := &Auditor{digest: d}
		replay.Event(w.label, w.fields...)
		if replay.State() != e.State {
			t.Errorf("%s moved the state from %s to %s; the generic event path gives %s", e.Label, before[i], e.State, replay.State())
		}
	}
	if other, _ := run(3); other == state {
		t.Errorf("Stop(-2) and Stop(3) audit the same state %s", state)
	}
}
