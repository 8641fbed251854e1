package deterministic

import (
	"bytes"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/storage/faulty"
)

// streamWorkload draws from every kind of decision: a contended mutex and
// a channel between several tasks (schedule, yield, spawn, select), sleeps,
// the user generator and odd-sized Reads, and storage faults.
func streamWorkload(ctx *Context) {
	var mu simrt.Mutex
	ch := simrt.NewChan[int](2)
	other := simrt.NewChan[int](2)
	shared := 0
	var hs []*simrt.Handle[int]
	for i := range 5 {
		hs = append(hs, simrt.Spawn(ctx, func(ctx simrt.Context) int {
			sum := 0
			for j := range 4 {
				mu.Lock(ctx)
				shared += i*j + ctx.Rand().IntN(7)
				mu.Unlock()
				var b [5]byte
				ctx.Read(b[:])
				sum += int(b[0]) + int(b[4])
				ctx.Sleep(time.Duration(ctx.Rand().IntN(3)) * time.Millisecond)
				if err := ch.Send(ctx, i); err != nil {
					panic(err)
				}
				other.TrySend(j)
			}
			return sum
		}))
	}
	got := 0
	for got < 20 {
		simrt.Select(ctx, ch.OnRecv(func(int, bool) { got++ }), other.OnRecv(nil))
	}
	for _, h := range hs {
		if _, err := h.Await(ctx); err != nil {
			panic(err)
		}
	}
	b, _, err := ctx.Open("p", []byte("blob"))
	if err == nil {
		_ = b.WriteAt(0, 0, []byte{byte(shared)})
		_ = b.Sync()
	}
}

// streamRun runs the workload and returns its audit state.
func streamRun(t *testing.T, cfg Config, root func(*Context)) string {
	t.Helper()
	cfg.StorageFaults = faulty.Config{SyncRate: 0.3, OpenRate: 0.2}
	cp := New(cfg).StartAndRecover(root)
	return cp.Auditor().State()
}

func TestStreamRecordReplaySameRun(t *testing.T) {
	rec := &decision.Stream{}
	want := streamRun(t, Config{Seed: 7, Hooks: Hooks{Record: rec}}, streamWorkload)
	if plain := streamRun(t, Config{Seed: 7}, streamWorkload); plain != want {
		t.Fatalf("recording changed the run: %s, without recording %s", want, plain)
	}
	kinds := map[decision.Kind]int{}
	for _, d := range rec.Decisions {
		kinds[d.Kind]++
	}
	for _, k := range []decision.Kind{decision.KindSchedule, decision.KindYield, decision.KindSpawn, decision.KindSelect, decision.KindFault, decision.KindRand} {
		if kinds[k] == 0 {
			t.Errorf("no %v decision recorded (%v)", k, kinds)
		}
	}
	// The stream alone is the run: replayed under another seed it gives
	// the same audit state.
	again := &decision.Stream{}
	if got := streamRun(t, Config{Seed: 99, Replay: rec, Hooks: Hooks{Record: again}}, streamWorkload); got != want {
		t.Fatalf("replay under seed 99: %s, recorded run %s", got, want)
	}
	if len(again.Decisions) != len(rec.Decisions) {
		t.Fatalf("replay made %d decisions, the recorded run %d", len(again.Decisions), len(rec.Decisions))
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := decision.ReadStream(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := streamRun(t, Config{Seed: 3, Replay: back}, streamWorkload); got != want {
		t.Fatalf("replay of the saved stream: %s, recorded run %s", got, want)
	}
	if other := streamRun(t, Config{Seed: 99}, streamWorkload); other == want {
		t.Fatalf("seeds 7 and 99 give the same state %s: the test shows nothing", want)
	}
}

func TestStreamReplayTruncated(t *testing.T) {
	rec := &decision.Stream{}
	want := streamRun(t, Config{Seed: 11, Hooks: Hooks{Record: rec}}, streamWorkload)
	half := &decision.Stream{Decisions: rec.Decisions[:len(rec.Decisions)/2]}
	// Past the end the seeded generator decides, in step with the replayed
	// part: same seed, same run.
	if got := streamRun(t, Config{Seed: 11, Replay: half}, streamWorkload); got != want {
		t.Fatalf("truncated replay, same seed: %s, recorded run %s", got, want)
	}
	// Under another seed the replayed prefix is kept and the rest is the
	// other seed's.
	again := &decision.Stream{}
	streamRun(t, Config{Seed: 12, Replay: half, Hooks: Hooks{Record: again}}, streamWorkload)
	for i, d := range half.Decisions {
		if again.Decisions[i] != d {
			t.Fatalf("decision %d: replayed %+v, recorded %+v", i, again.Decisions[i], d)
		}
	}
	// Empty: the seed's own run.
	if got := streamRun(t, Config{Seed: 11, Replay: &decision.Stream{}}, streamWorkload); got != want {
		t.Fatalf("empty replay: %s, want %s", got, want)
	}
}

func TestStreamReplayAfterCodeChange(t *testing.T) {
	rec := &decision.Stream{}
	streamRun(t, Config{Seed: 5, Hooks: Hooks{Record: rec}}, streamWorkload)
	// The edited program makes an extra fault draw at its start, so every
	// later position is shifted: where the kinds differ, the seed decides.
	changed := func(ctx *Context) {
		ctx.rt.rng.Uint64()
		streamWorkload(ctx)
	}
	again := &decision.Stream{}
	streamRun(t, Config{Seed: 5, Replay: rec, Hooks: Hooks{Record: again}}, changed)
	if len(again.Decisions) == 0 || again.Decisions[0].Kind != decision.KindFault {
		t.Fatalf("the changed program's first decision is %+v", again.Decisions[:1])
	}
	matched := 0
	for i, d := range again.Decisions {
		if i < len(rec.Decisions) && rec.Decisions[i].Kind == d.Kind {
			if rec.Decisions[i].Value != d.Value {
				t.Fatalf("decision %d of kind %v: %d, recorded %d", i, d.Kind, d.Value, rec.Decisions[i].Value)
			}
			matched++
		}
	}
	if matched == 0 {
		t.Fatal("no recorded decision was replayed")
	}
}
