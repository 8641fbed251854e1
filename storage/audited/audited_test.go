package audited_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/audited"
	"github.com/simrt/simrt/storage/memory"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
	"github.com/simrt/simrt/telemetry/audit"
)

// chain is a Recorder like the simulator's auditor: a CRC-32C chain over
// length-prefixed fields. It also keeps the labels.
type chain struct {
	state  uint32
	labels []string
}

func (c *chain) Event(label audit.Label, fields ...[]byte) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	var b []byte
	b = binary.BigEndian.AppendUint32(b, c.state)
	for _, f := range append([][]byte{[]byte(label)}, fields...) {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	c.state = crc32.Checksum(b, tab)
	c.labels = append(c.labels, string(label))
}

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
	storagetest.Run(t, simulator, func(storagetest.T, simrt.Context) simrt.Storage { return audited.New(memory.New(), &chain{}) })
}

// run applies f to a fresh audited store and returns the audit state.
func run(t *testing.T, f func(s simrt.Storage)) uint32 {
	t.Helper()
	c := &chain{}
	f(audited.New(memory.New(), c))
	return c.state
}

func TestOptionsChangeTheAudit(t *testing.T) {
	write := func(opts simrt.WriteOptions) uint32 {
		return run(t, func(s simrt.Storage) {
			b, _, _ := s.Open("p", []byte("b"))
			b.WriteAt(0, opts, []byte("x"))
		})
	}
	if write(0) == write(simrt.WriteSync) || write(0) == write(simrt.WriteDontCache) {
		t.Fatal("write options did not change the audit")
	}
}

func TestPartitionAndNameBoundariesAreUnambiguous(t *testing.T) {
	open := func(p, n string) uint32 {
		return run(t, func(s simrt.Storage) { s.Open(p, []byte(n)) })
	}
	if open("a", "bc") == open("ab", "c") {
		t.Fatal("a/bc and ab/c audit the same")
	}
}

func TestChunkingDoesNotChangeTheAudit(t *testing.T) {
	write := func(bufs ...[]byte) uint32 {
		return run(t, func(s simrt.Storage) {
			b, _, _ := s.Open("p", []byte("b"))
			if err := b.WriteAt(0, 0, bufs...); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, 6)
			if err := b.ReadAt(got, 0); err != nil || string(got) != "abcdef" {
				t.Fatalf("chunks reached the inner blob as %q, %v", got, err)
			}
		})
	}
	if write([]byte("abcdef")) != write([]byte("ab"), []byte("cd"), nil, []byte("ef")) {
		t.Fatal("chunking changed the audit")
	}
}

func TestFailedOperationsAreAudited(t *testing.T) {
	c := &chain{}
	s := audited.New(memory.New(), c)
	if _, _, err := s.Open("p", []byte("b")); err != nil {
		t.Fatal(err)
	}
	before := c.state
	if _, _, err := s.Open("p", []byte("b")); err == nil {
		t.Fatal("second open succeeded")
	}
	if c.state == before {
		t.Fatal("a refused open left the audit unchanged")
	}
}

func TestEveryOperationIsAudited(t *testing.T) {
	c := &chain{}
	s := audited.New(memory.New(), c)
	b, _, _ := s.Open("p", []byte("b"))
	b.WriteAt(0, 0, []byte("x"))
	b.ReadAt(make([]byte, 1), 0)
	b.Resize(1)
	b.Sync()
	b.StartSync()
	b.Close()
	s.Scan("p")
	s.Remove("p", []byte("b"))
	s.RemovePartition("p")
	got := fmt.Sprint(c.labels)
	want := "[open write_at read_at resize sync start_sync close scan remove remove]"
	if got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}

// sizes is a Recorder that allocates nothing: it sums the fields' lengths.
type sizes struct{ n int }

func (s *sizes) Event(_ audit.Label, fields ...[]byte) {
	for _, f := range fields {
		s.n += len(f)
	}
}

// TestBlobEventsAllocateNothing: recording a blob operation allocates
// nothing of its own, so an audited write costs what the device's does.
func TestBlobEventsAllocateNothing(t *testing.T) {
	mem := memory.New()
	raw, _, _ := mem.Open("p", []byte("raw"))
	b, _, _ := audited.New(mem, &sizes{}).Open("p", []byte("b"))
	data := []byte("sixteen bytes...")
	for _, blob := range []simrt.Blob{raw, b} { // both at full size
		if err := blob.WriteAt(0, 0, data); err != nil {
			t.Fatal(err)
		}
	}
	p := make([]byte, len(data))
	for _, op := range []struct {
		name string
		f    func(simrt.Blob)
	}{
		{"WriteAt", func(b simrt.Blob) { _ = b.WriteAt(0, 0, data) }},
		{"ReadAt", func(b simrt.Blob) { _ = b.ReadAt(p, 0) }},
		{"Resize", func(b simrt.Blob) { _ = b.Resize(uint64(len(data))) }},
		{"Sync", func(b simrt.Blob) { _ = b.Sync() }},
	} {
		want := testing.AllocsPerRun(100, func() { op.f(raw) })
		if got := testing.AllocsPerRun(100, func() { op.f(b) }); got > want {
			t.Errorf("%s: %.1f allocations audited, %.1f on the device: the audit allocates", op.name, got, want)
		}
	}
}
