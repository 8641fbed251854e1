package simtest

import (
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// pickPeerFromMap is deliberately nondeterministic: it picks the peer to
// call by ranging over a map, whose order Go randomises on every range.
func pickPeerFromMap(t *testing.T, ctx *deterministic.Context) {
	peers := map[string]int{"alice": 1, "bob": 2, "carol": 3, "dave": 4, "erin": 5, "frank": 6, "grace": 7, "heidi": 8}
	for range 32 { // 32 picks: the runs agree on all of them with probability 8^-32
		var peer string
		for name := range peers {
			peer = name
			break
		}
		simrt.Spawn(ctx.Child(peer), func(ctx simrt.Context) int {
			ctx.Sleep(time.Millisecond)
			return peers[peer]
		}).Await(ctx)
	}
}

// pickPeerSorted is the fix: the same choice from sorted keys.
func pickPeerSorted(t *testing.T, ctx *deterministic.Context) {
	peers := []string{"alice", "bob", "carol", "dave"}
	for range 32 {
		peer := peers[ctx.Rand().IntN(len(peers))]
		simrt.Spawn(ctx.Child(peer), func(ctx simrt.Context) int {
			ctx.Sleep(time.Millisecond)
			return 0
		}).Await(ctx)
	}
}

func TestDeterminismCheckPassesOnDeterministicCode(t *testing.T) {
	if d := checkDeterminism(t, deterministic.Config{Seed: 5}, pickPeerSorted, false); d != nil {
		t.Fatalf("deterministic code diverged:\n%s", d)
	}
	CheckDeterminism(t, deterministic.Config{Seed: 5}, pickPeerSorted)
}

func TestDeterminismCheckNamesFirstDivergence(t *testing.T) {
	d := checkDeterminism(t, deterministic.Config{Seed: 5}, pickPeerFromMap, false)
	if d == nil {
		t.Fatal("ranging over a map was not caught")
	}
	t.Logf("the report reads:\n%s", d)
	if d.First == nil || d.Second == nil {
		t.Fatalf("both runs should have an event at #%d", d.Index)
	}
	if d.First.Label != audit.Spawn || d.Second.Label != audit.Spawn {
		t.Errorf("divergent kinds %q, %q; want spawn (the map picked another peer)", d.First.Label, d.Second.Label)
	}
	if string(d.First.Fields[1]) == string(d.Second.Fields[1]) {
		t.Errorf("both runs spawned %q", d.First.Fields[1])
	}
	if d.First.Index != d.Index || !d.First.Time.Equal(d.Second.Time) || d.First.Task != d.Second.Task {
		t.Errorf("runs diverged at #%d but the events disagree on index, time or task: %v / %v", d.Index, *d.First, *d.Second)
	}
	if !strings.Contains(d.Causes[0], "map") {
		t.Errorf("first likely cause %q does not name map iteration", d.Causes[0])
	}
	s := d.String()
	for _, want := range []string{"first divergent event: #", "kind spawn", "run 1:", "run 2:", "a native goroutine", "wall clock", "math/rand"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

func TestCompareLongerRun(t *testing.T) {
	a := []audit.Event{{Index: 0, Label: audit.Spawn}, {Index: 1, Label: audit.Rand}}
	if d := Compare(a, a[:1]); d == nil || d.Index != 1 || d.First == nil || d.Second != nil {
		t.Errorf("Compare = %+v", d)
	}
	if d := Compare(a, a); d != nil {
		t.Errorf("identical streams diverge: %v", d)
	}
}
