package deterministic

import (
	"testing"

	"github.com/simrt/simrt"
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
	var events []Event
	New(Config{EventLog: 3}).Start(func(ctx *Context) {
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
		if e.Label != "rand" || string(e.Fields[0]) != "next_u64" {
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
		if s != first[seed].state || !equal(o, first[seed].order) {
			t.Fatalf("seed %d: %s %v, then %s %v", seed, first[seed].state, first[seed].order, s, o)
		}
	}
}

func TestDifferentSeedsDifferentOrder(t *testing.T) {
	s1, o1 := runTasks(5, Seeded(12345))
	s2, o2 := runTasks(5, Seeded(54321))
	if s1 == s2 && equal(o1, o2) {
		t.Fatalf("seeds 12345 and 54321 ran identically: %s %v", s1, o1)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
