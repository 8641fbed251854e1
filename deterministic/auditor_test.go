package deterministic

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/audit"
)

func runWithMetric(name, help string) string {
	var state string
	New(Config{}).Start(func(ctx *Context) {
		ctx.Counter(name, help)
		state = ctx.Auditor().State()
	})
	return state
}

func TestAuditorSeparatesMetricFields(t *testing.T) {
	if runWithMetric("a", "bc") == runWithMetric("ab", "c") {
		t.Fatal("moving a byte between fields left the audit unchanged")
	}
}

func TestAuditorSeparatesEvents(t *testing.T) {
	split := NewAuditor()
	split.Event("a", []byte("x"))
	split.Event("b")
	joined := NewAuditor()
	joined.Event("a", []byte("x"), []byte("b"))
	if split.State() == joined.State() {
		t.Fatal("two events audit the same as one event with the same fields")
	}
}

func TestAuditorStatePreservesHistory(t *testing.T) {
	observed, uninterrupted := NewAuditor(), NewAuditor()
	if got := observed.State(); got != "00000000" {
		t.Fatalf("initial state %q, want 00000000", got)
	}
	observed.Event("a", []byte("x"))
	before := observed.State()
	if len(before) != 8 || before != observed.State() {
		t.Fatalf("reading the state changed it: %q", before)
	}
	observed.Event("b", []byte("y"))
	uninterrupted.Event("a", []byte("x"))
	uninterrupted.Event("b", []byte("y"))
	if observed.State() == before || observed.State() != uninterrupted.State() {
		t.Fatalf("history: %q then %q, uninterrupted %q", before, observed.State(), uninterrupted.State())
	}
}

func TestAuditorIgnoresBufferChunking(t *testing.T) {
	contiguous := NewAuditor()
	contiguous.Event("send", []byte("abcd"))
	chunked := NewAuditor()
	chunked.EventChunks("send", nil, [][]byte{[]byte("a"), []byte("bc"), []byte("d")})
	if contiguous.State() != chunked.State() {
		t.Fatal("chunk boundaries changed the audit")
	}
	different := NewAuditor()
	different.Event("send", []byte("abce"))
	if contiguous.State() == different.State() {
		t.Fatal("a content change of the same length went unnoticed")
	}

	// Large payloads are hashed in place rather than copied; the state must
	// not depend on that either.
	big := make([]byte, 100_000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	whole, pieces := NewAuditor(), NewAuditor()
	whole.Event("write", []byte("p"), big)
	pieces.EventChunks("write", [][]byte{[]byte("p")}, [][]byte{big[:3], big[3:600], big[600:]})
	if whole.State() != pieces.State() {
		t.Fatal("large payload: chunking changed the audit")
	}
}

func TestAuditorEventLog(t *testing.T) {
	var events []audit.Event
	New(Config{Hooks: Hooks{EventLog: 3}}).Start(func(ctx *Context) {
		for range 5 {
			ctx.Rand().Uint64()
		}
		events = ctx.Auditor().Log().Events()
		if got := ctx.Auditor().Log().Total(); got < 5 {
			t.Errorf("total %d, want at least 5", got)
		}
	})
	if len(events) != 3 {
		t.Fatalf("kept %d events, want 3", len(events))
	}
	for i, e := range events {
		if e.Label != audit.Rand || string(e.Fields[0]) != "next_u64" {
			t.Errorf("event %d = %v", i, e)
		}
		if i > 0 && e.Index != events[i-1].Index+1 {
			t.Errorf("indices not consecutive: %v", events)
		}
	}
	if last := events[2]; last.State == "" || last.Task != "" {
		t.Errorf("last event %v: want the root task and a state", last)
	}
}

// task yields five times and returns i, like the reference's workload.
func rescheduleTask(i int) func(simrt.Context) int {
	return func(ctx simrt.Context) int {
		for range 5 {
			simrt.Reschedule(ctx)
		}
		return i
	}
}

// runTasks spawns n tasks and records the order in which they finish.
func runTasks(n int, r *Runner) (string, []int) {
	var state string
	var order []int
	r.Start(func(ctx *Context) {
		done := simrt.NewUnboundedChan[int]()
		for i := range n {
			simrt.Spawn(ctx.Child("task"), func(ctx simrt.Context) struct{} {
				done.Send(ctx, rescheduleTask(i)(ctx))
				return struct{}{}
			})
		}
		for range n {
			v, _ := done.Recv(ctx)
			order = append(order, v)
		}
		state = ctx.Auditor().State()
	})
	return state, order
}

func TestSameSeedSameOrder(t *testing.T) {
	type out struct {
		state string
		order []int
	}
	first := make([]out, 1000)
	for seed := range uint64(1000) {
		s, o := runTasks(5, Seeded(seed))
		first[seed] = out{s, o}
	}
	for seed := range uint64(1000) {
		s, o := runTasks(5, Seeded(seed))
		if s != first[seed].state || !slices.Equal(o, first[seed].order) {
			t.Fatalf("seed %d: %s %v, then %s %v", seed, first[seed].state, first[seed].order, s, o)
		}
	}
}

func TestDifferentSeedsDifferentOrder(t *testing.T) {
	s1, o1 := runTasks(5, Seeded(12345))
	s2, o2 := runTasks(5, Seeded(54321))
	if s1 == s2 && slices.Equal(o1, o2) {
		t.Fatalf("seeds 12345 and 54321 ran identically: %s %v", s1, o1)
	}
}

// TestAuditorFastPathsMatchEvent checks that the hand-tuned fast paths
// (processTask and spawn, which build their bytes without the variadic
// Event) hash exactly what Event hashes for the same label and fields
// (the id as 8 big-endian bytes, then the name), with and without an event
// log, over ids at the edges and random ones and names from empty to
// longer than the auditor's hashing piece. Each step starts from the
// state the previous ones left, so the previous state is covered too.
func TestAuditorFastPathsMatchEvent(t *testing.T) {
	edgeIDs := []uint64{0, 1, 255, 256, 1 << 32, math.MaxUint32, math.MaxInt64, math.MaxUint64}
	edgeNames := []string{"", "a", "node0", "root/child/task", "\x00\x00", "naïve ✓", strings.Repeat("x", 63),
		strings.Repeat("y", 64),
		// An Event of exactly one hashing piece (4096 bytes), then names
		// around and far above it.
		strings.Repeat("z", 4096-8-8-len("process_task")-8-8-8), strings.Repeat("w", 4096),
		strings.Repeat("v", 4097), strings.Repeat("long", 5000)}
	type input struct {
		id   uint64
		name string
	}
	var inputs []input
	for _, id := range edgeIDs {
		for _, name := range edgeNames {
			inputs = append(inputs, input{id, name})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, input{rng.Uint64(), string(b)})
	}

	for _, logged := range []bool{false, true} {
		fast, generic := NewAuditor(), NewAuditor()
		if logged {
			fast.log = &EventLog{Limit: -1}
			generic.log = &EventLog{Limit: -1}
		}
		step := 0
		check := func(what string, id uint64, name string) {
			t.Helper()
			if fast.State() != generic.State() {
				t.Fatalf("log=%v, step %d: %s(id %d, name of %d bytes %.40q) hashes to %s, Event to %s",
					logged, step, what, id, len(name), name, fast.State(), generic.State())
			}
			step++
		}
		for _, in := range inputs {
			id, name := in.id, in.name
			var idb [8]byte
			binary.BigEndian.PutUint64(idb[:], id)

			fast.processTask(id, name)
			generic.Event("process_task", idb[:], []byte(name))
			check("processTask", id, name)

			fast.spawn(id, name)
			generic.Event("spawn", idb[:], []byte(name))
			check("spawn", id, name)

			// An event between them, so that a fast path that ignored the
			// previous state would show.
			fast.Event("rand", []byte(name))
			generic.Event("rand", []byte(name))
			check("Event", id, name)
		}
		if logged {
			fe, ge := fast.Log().Events(), generic.Log().Events()
			if len(fe) != len(ge) || len(fe) != step {
				t.Fatalf("logged %d fast and %d generic events, want %d", len(fe), len(ge), step)
			}
			for k := range fe {
				f, g := fe[k], ge[k]
				if f.Label != g.Label || f.State != g.State || len(f.Fields) != len(g.Fields) {
					t.Fatalf("event %d: fast path logged %v, Event %v", k, f, g)
				}
				for m := range f.Fields {
					if !bytes.Equal(f.Fields[m], g.Fields[m]) {
						t.Fatalf("event %d field %d: fast path logged %x, Event %x", k, m, f.Fields[m], g.Fields[m])
					}
				}
			}
		}
	}

	// The same sequence with and without a log ends in the same state.
	plain, logged := NewAuditor(), NewAuditor()
	logged.log = &EventLog{Limit: 1}
	for _, in := range inputs {
		plain.processTask(in.id, in.name)
		logged.processTask(in.id, in.name)
		plain.spawn(in.id, in.name)
		logged.spawn(in.id, in.name)
	}
	if plain.State() != logged.State() {
		t.Fatalf("with an event log the fast paths end in %s, without %s", logged.State(), plain.State())
	}
}
