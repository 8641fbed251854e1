package faulty_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

// simulator runs each conformance case as the root task of a fresh
// simulation.
var simulator = suite.Runtime{
	Simulated: true,
	Stalled:   deterministic.ErrStalled,
	TimedOut:  deterministic.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := deterministic.Config{Seed: o.Seed, CatchPanics: o.CatchPanics, Timeout: o.Timeout}
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) { root(ctx) })
	},
}

func TestConformance(t *testing.T) {
	storagetest.RunWithHooks(t, simulator, func(storagetest.T, simrt.Context) (simrt.Storage, storagetest.Hooks) {
		fs := faulty.New(memory.New(), rand.New(rand.NewPCG(1, 2)), faulty.Config{})
		return fs, storagetest.Hooks{FailSyncs: func(on bool) {
			fs.Config().SyncRate = map[bool]float64{false: 0, true: 1}[on]
		}}
	})
}

// TestConformanceConfiguredNotFiring runs the suite with every rate set but
// no failure possible: retention journals every write.
func TestConformanceConfiguredNotFiring(t *testing.T) {
	storagetest.Run(t, simulator, func(storagetest.T, simrt.Context) simrt.Storage {
		return faulty.New(memory.New(), rand.New(rand.NewPCG(1, 2)), faulty.Config{
			Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset},
		})
	})
}

// await returns the outcome of a handle, awaited in a task of a
// simulation (faulty's StartSync handles are complete when returned).
func await[V any](h *simrt.Handle[V]) (v V, err error) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) { v, err = h.Await(ctx) })
	return v, err
}

// env is a faulty store over memory, with a counting generator.
type env struct {
	t   *testing.T
	mem *memory.Storage
	fs  *faulty.Storage
	src *countingSource
}

func newEnv(t *testing.T, seed uint64, cfg faulty.Config) *env {
	src := &countingSource{inner: rand.NewPCG(seed, 7)}
	mem := memory.New()
	return &env{t: t, mem: mem, fs: faulty.New(mem, rand.New(src), cfg), src: src}
}

type countingSource struct {
	inner rand.Source
	draws int
}

func (c *countingSource) Uint64() uint64 { c.draws++; return c.inner.Uint64() }

func (e *env) open(name string) simrt.Blob {
	e.t.Helper()
	b, _, err := e.fs.Open("p", []byte(name))
	if err != nil {
		e.t.Fatalf("Open(%q): %v", name, err)
	}
	return b
}

func (e *env) write(b simrt.Blob, off uint64, opts simrt.WriteOptions, data string) {
	e.t.Helper()
	if err := b.WriteAt(off, opts, []byte(data)); err != nil {
		e.t.Fatalf("WriteAt(%d, %q): %v", off, data, err)
	}
}

// crash resolves the journal and returns the durable contents of name.
func (e *env) crash(name string) string {
	e.t.Helper()
	if err := e.fs.Crash(); err != nil {
		e.t.Fatalf("Crash: %v", err)
	}
	return e.durable(name)
}

func (e *env) durable(name string) string {
	e.t.Helper()
	data, ok := e.mem.LogicalBlob("p", []byte(name))
	if !ok {
		e.t.Fatalf("blob %q missing", name)
	}
	return string(data)
}

func retainAll(mode faulty.PartialWriteMode) faulty.Config {
	return faulty.Config{Write: faulty.WriteConfig{RetentionRate: 1, Mode: mode}}
}

func isInjected(err error) bool {
	return errors.Is(err, faulty.ErrInjected) && errors.Is(err, simrt.ErrIO)
}

func TestInjectedErrorText(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{OpenRate: 1})
	_, _, err := e.fs.Open("p", []byte("a"))
	if !isInjected(err) || err.Error() != "io error: injected storage fault" {
		t.Fatalf("injected error = %v", err)
	}
}

func TestUnsyncedWritesLostWithDefaultConfig(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	e.write(b, 0, simrt.WriteSync, "saved")
	e.write(b, 0, 0, "stale")
	if err := b.Resize(2); err != nil {
		t.Fatal(err)
	}
	if got := e.crash("a"); got != "saved" {
		t.Fatalf("after crash %q, want %q", got, "saved")
	}
	if e.src.draws != 0 {
		t.Fatalf("the zero config drew %d numbers", e.src.draws)
	}
}

func TestSyncWriteDoesNotBarrierDisjointPendingWrites(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 0, 0, "A")
	e.write(b, 7, simrt.WriteSync, "Z")
	if got := e.crash("a"); got != "A\x00\x00\x00\x00\x00\x00Z" {
		t.Fatalf("after crash %q", got)
	}
}

func TestSyncWriteRetiresOnlyOverlappingPendingBytes(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	a, other := e.open("a"), e.open("b")
	e.write(a, 0, 0, "ABCDEFGH")
	e.write(other, 0, 0, "abcdefgh")
	e.write(a, 3, simrt.WriteSync, "xy")
	if got := e.crash("a"); got != "ABCxyFGH" {
		t.Fatalf("a after crash %q, want ABCxyFGH", got)
	}
	if got := e.durable("b"); got != "abcdefgh" {
		t.Fatalf("b after crash %q, want abcdefgh", got)
	}
}

func TestSyncWriteRetiresBytesOfAnOlderPendingWrite(t *testing.T) {
	// A pending write older than a WriteSync write over the same bytes must
	// not resurrect them at the crash: replay would put "DE" back.
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	a := e.open("a")
	e.write(a, 0, 0, "ABCDE")
	e.write(a, 3, simrt.WriteSync, "de")
	if got := e.crash("a"); got != "ABCde" {
		t.Fatalf("after crash %q, want ABCde", got)
	}
}

func TestCrashReplaysWritesAndResizesInIssueOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		then func(e *env, b simrt.Blob)
		want string
	}{
		{"resize last", func(e *env, b simrt.Blob) {}, "abc\x00\x00"},
		{"write after resize", func(e *env, b simrt.Blob) { e.write(b, 5, 0, "X") }, "abc\x00\x00X"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 1, retainAll(faulty.Prefix))
			b := e.open("a")
			e.write(b, 0, 0, "abcdefgh")
			e.fs.Config().Resize = faulty.ResizeConfig{FailureRate: 0.5}
			// Retry until one resize is retained (seeded, so always the same).
			for e.fs.Pending() < 2 {
				if err := b.Resize(3); err != nil && !isInjected(err) {
					t.Fatal(err)
				}
			}
			e.fs.Config().Resize = faulty.ResizeConfig{}
			if err := b.Resize(5); err != nil {
				t.Fatal(err)
			}
			e.fs.Config().Resize = faulty.ResizeConfig{FailureRate: 0.5}
			for e.fs.Pending() < 3 {
				if err := b.Resize(5); err != nil && !isInjected(err) {
					t.Fatal(err)
				}
			}
			e.fs.Config().Resize = faulty.ResizeConfig{}
			tc.then(e, b)
			if got := e.crash("a"); got != tc.want {
				t.Fatalf("after crash %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPartialSyncWriteReplaysAfterRetainedResize(t *testing.T) {
	e := newEnv(t, 3, faulty.Config{})
	b := e.open("a")
	e.write(b, 0, simrt.WriteSync, "abcdefgh")
	// A retained shrink, then a WriteSync write past the new end: the crash
	// must replay the write after the resize, or it would be cut off.
	e.fs.Config().Resize = faulty.ResizeConfig{FailureRate: 0.5}
	for e.fs.Pending() == 0 {
		if err := b.Resize(2); err != nil && !isInjected(err) {
			t.Fatal(err)
		}
	}
	e.fs.Config().Resize = faulty.ResizeConfig{}
	e.write(b, 4, simrt.WriteSync, "XY")
	if got := e.crash("a"); got != "ab\x00\x00XY" {
		t.Fatalf("after crash %q, want %q", got, "ab\x00\x00XY")
	}
}

func TestProbabilityEndpointsConsumeNoRandomness(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 1}})
	b := e.open("a")
	e.write(b, 0, 0, "abc")
	e.write(b, 0, simrt.WriteSync, "x")
	_ = b.Sync()
	_ = b.Resize(1)
	_ = e.fs.Crash()
	if e.src.draws != 0 {
		t.Fatalf("rates 0 and 1 drew %d numbers", e.src.draws)
	}
	e.fs.Config().SyncRate = 1
	if err := b.Sync(); !isInjected(err) {
		t.Fatalf("SyncRate 1: %v", err)
	}
	if e.src.draws != 0 {
		t.Fatalf("rate 1 drew %d numbers", e.src.draws)
	}
	e.fs.Config().SyncRate = 0.5
	b = e.open("b") // a is poisoned: its syncs draw nothing any more
	_ = b.Sync()
	if e.src.draws != 1 {
		t.Fatalf("an interior rate drew %d numbers, want 1", e.src.draws)
	}
}

func TestPrefixRetentionSelectsEveryPrefixLength(t *testing.T) {
	seen := map[int]bool{}
	for seed := range uint64(400) {
		e := newEnv(t, seed, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Prefix}})
		b := e.open("a")
		e.write(b, 0, 0, "xxxx")
		got := e.crash("a")
		if got != "xxxx"[:len(got)] {
			t.Fatalf("seed %d: prefix retention kept %q", seed, got)
		}
		seen[len(got)] = true
	}
	for n := 0; n <= 4; n++ {
		if !seen[n] {
			t.Fatalf("no seed kept a prefix of length %d", n)
		}
	}
}

func TestSubsetCanBeNonPrefix(t *testing.T) {
	for seed := range uint64(100) {
		e := newEnv(t, seed, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}})
		b := e.open("a")
		e.write(b, 0, 0, "xxxxxxxx")
		if got := e.crash("a"); bytes.Contains([]byte(got), []byte("\x00x")) {
			return
		}
	}
	t.Fatal("no seed kept a non-prefix subset")
}

func TestPrefixRetentionPreservedAcrossFragments(t *testing.T) {
	// The fragments of a split write share one selection: what survives is
	// a prefix of the original write, minus the synced middle.
	for seed := range uint64(50) {
		e := newEnv(t, seed, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.8, Mode: faulty.Prefix}})
		b := e.open("a")
		e.write(b, 0, 0, "abcdefgh")
		e.write(b, 3, simrt.WriteSync, "XY")
		got := e.crash("a")
		if len(got) < 5 || got[3:5] != "XY" {
			t.Fatalf("seed %d: synced bytes lost: %q", seed, got)
		}
		dropped := false
		for _, i := range []int{0, 1, 2, 5, 6, 7} {
			kept := i < len(got) && got[i] == "abcdefgh"[i]
			if kept && dropped {
				t.Fatalf("seed %d: fragments kept a non-prefix: %q", seed, got)
			}
			dropped = dropped || !kept
		}
	}
}

func TestOffsetOverflowRejectedBeforeRetention(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{Write: faulty.WriteConfig{FailureRate: 0.5, RetentionRate: 0.5}})
	b := e.open("a")
	if err := b.WriteAt(1<<64-1, 0, []byte("ab")); !errors.Is(err, simrt.ErrOffsetOverflow) {
		t.Fatalf("overflowing write: %v", err)
	}
	if e.src.draws != 0 {
		t.Fatalf("an overflowing write drew %d numbers", e.src.draws)
	}
}

func TestFailedWriteWithFullRetentionKeepsEveryByte(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{Write: faulty.WriteConfig{FailureRate: 1, RetentionRate: 1}})
	b := e.open("a")
	if err := b.WriteAt(0, 0, []byte("kept")); !isInjected(err) {
		t.Fatalf("write: %v", err)
	}
	if got := e.durable("a"); got != "kept" {
		t.Fatalf("durable at once: %q", got)
	}
	p := make([]byte, 4)
	if err := b.ReadAt(p, 0); err != nil || string(p) != "kept" {
		t.Fatalf("live: %q %v", p, err)
	}
}

func TestZeroRetentionPreservesNothing(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{Write: faulty.WriteConfig{FailureRate: 1}})
	b := e.open("a")
	if err := b.WriteAt(0, 0, []byte("lost")); !isInjected(err) {
		t.Fatalf("write: %v", err)
	}
	if got := e.crash("a"); got != "" {
		t.Fatalf("after crash %q", got)
	}
}

func TestAlwaysFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  faulty.Config
		op   func(fs *faulty.Storage, b simrt.Blob) error
	}{
		{"open", faulty.Config{OpenRate: 1}, func(fs *faulty.Storage, b simrt.Blob) error {
			_, _, err := fs.Open("p", []byte("other"))
			return err
		}},
		{"read", faulty.Config{ReadRate: 1}, func(_ *faulty.Storage, b simrt.Blob) error { return b.ReadAt(nil, 0) }},
		{"write", faulty.Config{Write: faulty.WriteConfig{FailureRate: 1}}, func(_ *faulty.Storage, b simrt.Blob) error {
			return b.WriteAt(0, 0, []byte("x"))
		}},
		{"sync write", faulty.Config{SyncRate: 1}, func(_ *faulty.Storage, b simrt.Blob) error {
			return b.WriteAt(0, simrt.WriteSync, []byte("x"))
		}},
		{"sync", faulty.Config{SyncRate: 1}, func(_ *faulty.Storage, b simrt.Blob) error { return b.Sync() }},
		{"start sync", faulty.Config{SyncRate: 1}, func(_ *faulty.Storage, b simrt.Blob) error {
			_, err := await(b.StartSync())
			return err
		}},
		{"resize", faulty.Config{Resize: faulty.ResizeConfig{FailureRate: 1}}, func(_ *faulty.Storage, b simrt.Blob) error {
			return b.Resize(10)
		}},
		{"remove", faulty.Config{RemoveRate: 1}, func(fs *faulty.Storage, _ simrt.Blob) error {
			return fs.Remove("p", []byte("a"))
		}},
		{"remove partition", faulty.Config{RemoveRate: 1}, func(fs *faulty.Storage, _ simrt.Blob) error {
			return fs.RemovePartition("p")
		}},
		{"scan", faulty.Config{ScanRate: 1}, func(fs *faulty.Storage, _ simrt.Blob) error {
			_, err := fs.Scan("p")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 1, faulty.Config{})
			b := e.open("a")
			*e.fs.Config() = tc.cfg
			if err := tc.op(e.fs, b); !isInjected(err) {
				t.Fatalf("got %v, want an injected fault", err)
			}
		})
	}
}

func TestSyncWriteSyncFailureIsNotDurableButJournaled(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{SyncRate: 1, Write: faulty.WriteConfig{RetentionRate: 1}})
	b := e.open("a")
	if err := b.WriteAt(0, simrt.WriteSync, []byte("data")); !isInjected(err) {
		t.Fatalf("write: %v", err)
	}
	if got := e.durable("a"); got != "" {
		t.Fatalf("durable before the crash: %q", got)
	}
	if got := e.crash("a"); got != "data" {
		t.Fatalf("after crash %q, want the journaled write", got)
	}
}

func TestEmptySyncWriteDoesNotSyncPriorWrites(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	e.write(b, 0, 0, "abc")
	e.write(b, 3, simrt.WriteSync, "")
	if got := e.crash("a"); got != "" {
		t.Fatalf("after crash %q", got)
	}
}

func TestEmptyUnsyncedWriteCreatesNoDebt(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 8, 0, "")
	if n := e.fs.Pending(); n != 0 {
		t.Fatalf("journal holds %d entries", n)
	}
}

func TestSameSeedSameOpenFailures(t *testing.T) {
	run := func(seed uint64) []bool {
		e := newEnv(t, seed, faulty.Config{OpenRate: 0.5})
		var out []bool
		for i := range 20 {
			b, _, err := e.fs.Open("p", []byte{byte(i)})
			out = append(out, err == nil)
			if b != nil {
				b.Close()
			}
		}
		return out
	}
	a, b, c := run(12345), run(12345), run(99999)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different failures")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same failures")
	}
}

func TestDynamicConfig(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	e.fs.Config().SyncRate = 1
	if err := b.Sync(); !isInjected(err) {
		t.Fatalf("sync with SyncRate 1: %v", err)
	}
	e.fs.Config().SyncRate = 0
	// The failed sync poisoned the handle: the change reaches the next
	// handle, not this one.
	if err := b.Sync(); !isInjected(err) {
		t.Fatalf("sync of a poisoned handle with SyncRate 0: %v", err)
	}
	b.Close()
	if err := e.open("a").Sync(); err != nil {
		t.Fatalf("sync with SyncRate 0: %v", err)
	}
}

func TestRandomCrashIsDeterministicAndInclusive(t *testing.T) {
	outcomes := map[string]bool{}
	for seed := range uint64(64) {
		run := func() string {
			e := newEnv(t, seed, faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}})
			b := e.open("a")
			e.write(b, 0, 0, "x")
			return e.crash("a")
		}
		first := run()
		if run() != first {
			t.Fatalf("seed %d: two crashes differ", seed)
		}
		outcomes[first] = true
	}
	if !outcomes[""] || !outcomes["x"] {
		t.Fatalf("a 1-byte write at rate 0.5 had outcomes %v, want both", outcomes)
	}
}

func TestJournalClearsOnlyAfterCompletedDurability(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 0, 0, "abc")
	e.fs.Config().SyncRate = 1
	if err := b.Sync(); !isInjected(err) {
		t.Fatal(err)
	}
	if e.fs.Pending() != 1 {
		t.Fatalf("a failed sync cleared the journal")
	}
	e.fs.Config().SyncRate = 0
	// The retry fails too (the handle is poisoned) and clears nothing.
	if err := b.Sync(); !isInjected(err) {
		t.Fatalf("a retried sync after a failed one: %v", err)
	}
	if e.fs.Pending() != 1 {
		t.Fatalf("a refused retry cleared the journal")
	}
	c := e.open("c")
	e.write(c, 0, 0, "def")
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if e.fs.Pending() != 1 {
		t.Fatalf("a successful sync of c left %d entries, want a's one", e.fs.Pending())
	}
}

func TestReopenDiscardsEarlierJournal(t *testing.T) {
	// test_logical_open_releases_retained_mutations, at the faulty layer:
	// the reopened handle sees the page cache, "stXle", unsynced; the
	// crash keeps what is durable, "saXed", and replays none of the
	// earlier handle's retained fragments.
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 0, simrt.WriteSync, "saved")
	e.write(b, 0, 0, "stale")
	e.write(b, 2, simrt.WriteSync, "X")
	b.Close()
	b = e.open("a")
	p := make([]byte, 5)
	if err := b.ReadAt(p, 0); err != nil || string(p) != "stXle" {
		t.Fatalf("reopened %q %v, want the closed handle's bytes", p, err)
	}
	if got := e.crash("a"); got != "saXed" {
		t.Fatalf("after crash %q, want saXed", got)
	}
}

func TestClosedHandleJournalSurvivesCrash(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 0, 0, "kept")
	b.Close()
	if got := e.crash("a"); got != "kept" {
		t.Fatalf("after crash %q", got)
	}
}

func TestRemoveDiscardsJournal(t *testing.T) {
	e := newEnv(t, 1, retainAll(faulty.Prefix))
	b := e.open("a")
	e.write(b, 0, 0, "gone")
	if err := e.fs.Remove("p", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if e.fs.Pending() != 0 {
		t.Fatal("remove left the journal")
	}
	e.write(b, 0, 0, "late") // through the removed handle
	c := e.open("a")
	e.write(c, 0, simrt.WriteSync, "new")
	if got := e.crash("a"); got != "new" {
		t.Fatalf("after crash %q, want new", got)
	}
}
