package faulty_test

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

// TestFaultsCountedByOp checks that every injected failure is counted once
// under its operation, and a poisoned handle's repeated error not again.
func TestFaultsCountedByOp(t *testing.T) {
	fs := faulty.New(memory.New(), rand.New(rand.NewPCG(1, 2)), faulty.Config{})
	if got := fs.Faults(); len(got) != 0 {
		t.Fatalf("fresh storage: Faults() = %v, want none", got)
	}
	b, _, err := fs.Open("p", []byte("b"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	cfg := fs.Config()
	*cfg = faulty.Config{OpenRate: 1, ReadRate: 1, Write: faulty.WriteConfig{FailureRate: 1},
		Resize: faulty.ResizeConfig{FailureRate: 1}, RemoveRate: 1, ScanRate: 1}
	fs.Open("p", []byte("b"))
	b.ReadAt(make([]byte, 1), 0)
	b.WriteAt(0, 0, []byte("x"))
	b.Resize(10)
	fs.Remove("p", []byte("b"))
	fs.RemovePartition("p")
	fs.Scan("p")
	*cfg = faulty.Config{SyncRate: 1}
	b.Sync()
	b.Sync()             // poisoned: not injected again
	b.WriteAt(0, 0, nil) // poisoned
	want := fault.Counts{"storage_open": 1, "storage_read": 1, "storage_write": 1, "storage_resize": 1,
		"storage_remove": 2, "storage_scan": 1, "storage_sync": 1}
	if got := fs.Faults(); !maps.Equal(got, want) {
		t.Fatalf("Faults() = %v, want %v", got, want)
	}
}

// TestFaultsCountTornWritesAtCrash checks that a crash counts the
// journaled unsynced writes it keeps only in part.
func TestFaultsCountTornWritesAtCrash(t *testing.T) {
	fs := faulty.New(memory.New(), rand.New(rand.NewPCG(1, 2)),
		faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}})
	b, _, err := fs.Open("p", []byte("b"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	for i := range 3 {
		if err := b.WriteAt(uint64(64*i), simrt.WriteOptions(0), bytes.Repeat([]byte{1}, 64)); err != nil {
			t.Fatalf("WriteAt: %v", err)
		}
	}
	if err := fs.Crash(); err != nil {
		t.Fatalf("Crash: %v", err)
	}
	// Each of 64 bytes is kept with probability 1/2: every write is torn.
	want := fault.Counts{"crash_torn_write": 3}
	if got := fs.Faults(); !maps.Equal(got, want) {
		t.Fatalf("Faults() = %v, want %v", got, want)
	}
}
