package nemesis

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/fault"
)

// brownout is a test-only fault kind: one node's power sags for a while,
// by a delay. Its device is the map below, which apply and undo change.
const brownout fault.Name = "test-brownout"

// addKind appends spec to the kind table for the test and returns its
// Kind; the table is restored when the test ends.
func addKind(t *testing.T, spec kindSpec) Kind {
	t.Helper()
	saved := kinds
	kinds = append(slices.Clip(kinds), spec)
	t.Cleanup(func() { kinds = saved })
	return Kind(len(kinds) - 1)
}

// TestAddedKindRunsEndToEnd: a kind is one entry of the kind table plus
// its device hook. A test-only kind added here, and nowhere else, is
// drawn, written, parsed back, checked, applied, undone, counted and
// shrunk as the built-in kinds are.
func TestAddedKindRunsEndToEnd(t *testing.T) {
	sagging := map[string]time.Duration{} // the device: each node's sag
	var applied, undone int
	k := addKind(t, kindSpec{
		name: brownout, shape: oneNode, class: classProcess,
		draw: func(d *drawer, e *Event) bool {
			return d.one(e) && d.set(&e.Delay, d.between(time.Millisecond, 20*time.Millisecond))
		},
		do: func(m *Nemesis, i int, ns []Node, undo bool) {
			if undo {
				delete(sagging, ns[0].Name())
				undone++
				return
			}
			sagging[ns[0].Name()] = m.s.Events[i].Delay
			applied++
		},
		params: delayParams(false, true),
	})

	if !slices.Contains(Kinds(), k) || k.String() != string(brownout) || k.Name() != brownout {
		t.Fatalf("Kinds() = %v; the added kind %v named %q", Kinds(), k, k.Name())
	}
	if got, err := ParseKind(string(brownout)); err != nil || got != k {
		t.Fatalf("ParseKind(%q) = %v, %v", brownout, got, err)
	}

	// Draw: only the added kind, one node at a time (its class), with
	// its parameter drawn in range.
	s, err := Draw(SeedRand(3), five, Config{NoSwarm: true, Heal: 20 * time.Second,
		Faults: []Fault{{Kind: k, Min: 100 * time.Millisecond, Max: 2 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) < 5 {
		t.Fatalf("drew %d events", len(s.Events))
	}
	for _, e := range s.Events {
		if e.Kind != k || len(e.Nodes) != 1 || e.Delay < time.Millisecond || e.Delay > 20*time.Millisecond {
			t.Fatalf("drew %s", e)
		}
	}
	if !slices.Equal(s.Kinds(), []Kind{k}) {
		t.Fatalf("Schedule.Kinds() = %v", s.Kinds())
	}

	// Format and parse: the schedule file round-trips, and a bad
	// parameter is refused by the kind's check.
	text := s.String()
	if !strings.Contains(text, " test-brownout {n") {
		t.Fatalf("schedule:\n%s", text)
	}
	back, err := ParseSchedule([]byte(text))
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("ParseSchedule(String()) = %v, %v; want\n%s", back, err, text)
	}
	if _, err := ParseEvent("1s test-brownout {n1} 0s for 1s"); err == nil || !strings.Contains(err.Error(), "test-brownout: delay 0s is not positive") {
		t.Fatalf("a zero delay: %v", err)
	}

	// Apply, undo and count: every event reaches the device and is undone
	// by the heal, and the effects count under the kind's name.
	m := runFake(t, newFake(5), s, nil)
	if applied != len(s.Events) || undone != len(s.Events) || len(sagging) != 0 {
		t.Fatalf("applied %d, undone %d of %d events; still sagging %v", applied, undone, len(s.Events), sagging)
	}
	if got := Counts(m.Effects()); len(got) != 1 || got[brownout] != uint64(len(s.Events)) {
		t.Fatalf("Counts = %v, want %s %d", got, brownout, len(s.Events))
	}

	// Shrink: its delay halves like any other parameter.
	e := Event{At: time.Second, Kind: k, Nodes: []string{"n1"}, For: time.Second, Delay: 8 * time.Millisecond}
	if !slices.ContainsFunc(Simpler(e, 10*time.Second), func(v Event) bool { return v.Delay == 4*time.Millisecond }) {
		t.Fatalf("Simpler(%s) = %v: no halved delay", e, Simpler(e, 10*time.Second))
	}
}

// TestCountsByName: Counts keys the effects by the kinds' fault names,
// the ones the storage counts disk faults under.
func TestCountsByName(t *testing.T) {
	es := []Effect{{Event: Event{Kind: DiskFail}}, {Event: Event{Kind: DiskFail}}, {Event: Event{Kind: Partition}}}
	want := fault.Counts{fault.DiskFail: 2, fault.Partition: 1}
	if got := Counts(es); !reflect.DeepEqual(got, want) {
		t.Fatalf("Counts = %v, want %v", got, want)
	}
	for _, k := range Kinds() {
		if k.Family() == 0 {
			t.Errorf("%s has no family", k)
		}
	}
}
