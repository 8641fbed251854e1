package deterministic_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
)

// bytesProgram races two tasks that sleep random times, yields, fires a
// Buggify site and evaluates a Sometimes, so every kind of decision the
// fuzzer feeds is drawn.
func bytesProgram(ctx *deterministic.Context) {
	var hs []*simrt.Handle[int]
	for _, name := range []string{"a", "b"} {
		hs = append(hs, simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int {
			for range 4 {
				ctx.Sleep(time.Duration(ctx.Rand().IntN(4)) * time.Millisecond)
				if simrt.Buggify(ctx, "bytes_site") {
					ctx.Sleep(time.Millisecond)
				}
			}
			return 0
		}))
	}
	for _, h := range hs {
		h.Await(ctx)
	}
	simrt.Sometimes(ctx, ctx.Now().UnixMilli() > 5, "bytes: slow run")
}

func stateOf(t *testing.T, cfg deterministic.Config) string {
	t.Helper()
	var state string
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		bytesProgram(ctx)
		state = ctx.Auditor().State()
	})
	return state
}

// TestBytesDecider: an input of only a seed runs exactly as that seed does
// (the Decider answers nothing); the same input is the same run; one
// changed decision byte changes the run; the byte is the value's every
// byte.
func TestBytesDecider(t *testing.T) {
	for _, seed := range []uint64{0, 7, 1 << 40} {
		in := binary.LittleEndian.AppendUint64(nil, seed)
		d := decision.NewBytes(in)
		if d.Seed() != seed || d.Len() != 0 {
			t.Fatalf("NewBytes(%x): seed %d, %d decisions", in, d.Seed(), d.Len())
		}
		if got, want := stateOf(t, deterministic.Config{Seed: d.Seed(), Replay: d}), stateOf(t, deterministic.Config{Seed: seed}); got != want {
			t.Errorf("seed-only input %d: state %s, the seed's own run %s", seed, got, want)
		}
	}
	if d := decision.NewBytes([]byte{1, 2}); d.Seed() != 0x0201 || d.Len() != 0 {
		t.Errorf("a short input: seed %#x, %d decisions; want 0x201, 0", d.Seed(), d.Len())
	}
	in := append(binary.LittleEndian.AppendUint64(nil, 3), make([]byte, 64)...)
	for i := 8; i < len(in); i++ {
		in[i] = byte(i * 37)
	}
	d := decision.NewBytes(in)
	if v, ok := d.Decide(2, decision.KindRand); !ok || v != uint64(in[10])*0x0101010101010101 {
		t.Errorf("Decide(2) = %#x, %v", v, ok)
	}
	if _, ok := d.Decide(64, decision.KindRand); ok {
		t.Errorf("Decide past the input answered")
	}
	run := func(in []byte) string {
		d := decision.NewBytes(in)
		return stateOf(t, deterministic.Config{Seed: d.Seed(), Replay: d})
	}
	a := run(in)
	if b := run(in); a != b {
		t.Errorf("the same input ran twice: states %s and %s", a, b)
	}
	rec := &decision.Stream{}
	stateOf(t, deterministic.Config{Seed: d.Seed(), Replay: d, Hooks: deterministic.Hooks{Record: rec}})
	used := min(len(rec.Decisions), d.Len())
	changed := 0
	for i := range used {
		mut := append([]byte(nil), in...)
		mut[8+i] = ^mut[8+i]
		if run(mut) != a {
			changed++
		}
	}
	if used < 10 || changed < used/2 {
		t.Errorf("inverting one of the %d decision bytes the run used changed it for %d; want most", used, changed)
	}
}

// observer records the hits of a run and replays nothing.
type observer struct{ hits []decision.Hit }

func (o *observer) Decide(uint64, decision.Kind) (uint64, bool) { return 0, false }
func (o *observer) FirstHit(h decision.Hit)                     { o.hits = append(o.hits, h) }

// TestFirstHitNotification: a HitObserver is told once per goal and run,
// in order, with the stream position after the draw that fired (a
// recorded run's Buggify decision sits just before it); observing changes
// nothing in the run.
func TestFirstHitNotification(t *testing.T) {
	cfg := deterministic.Config{Seed: 11, Buggify: deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 0.5}}
	plain := stateOf(t, cfg)
	o := &observer{}
	rec := &decision.Stream{}
	c := cfg
	c.Replay, c.Hooks.Record = o, rec
	if got := stateOf(t, c); got != plain {
		t.Fatalf("observing changed the run: state %s, without %s", got, plain)
	}
	if len(o.hits) != 2 {
		t.Fatalf("hits %+v; want the Buggify site, then the Sometimes", o.hits)
	}
	b, s := o.hits[0], o.hits[1]
	if b.Kind != decision.HitBuggify || b.Name != "bytes_site" || b.Site.Line == 0 {
		t.Errorf("first hit %+v; want buggify bytes_site with its line", b)
	}
	if b.Position == 0 || rec.Decisions[b.Position-1].Kind != decision.KindBuggify {
		t.Errorf("buggify hit at position %d: the decision before it is not a Buggify draw", b.Position)
	}
	if s.Kind != decision.HitSometimes || s.Name != "bytes: slow run" || s.Position != uint64(len(rec.Decisions)) {
		t.Errorf("second hit %+v; want sometimes at the end of the stream (%d)", s, len(rec.Decisions))
	}
}
