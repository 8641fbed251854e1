// Package faulty injects storage faults and decides, at a crash, which
// unsynced writes and resizes survive.
//
// A Storage wraps another (in the simulator, a memory store) and fails
// operations at the rates of its Config, drawing from the runtime's seeded
// generator. It also keeps a crash journal: the writes and resizes that are
// not yet durable but may survive a crash under the Config's retention
// policy, in issue order. Crash replays what survives into the memory
// store's durable state; everything else unsynced is lost.
//
//	mem := memory.New()
//	fs := faulty.New(mem, rand.New(rand.NewPCG(1, 2)), faulty.Config{SyncRate: 0.1})
//	b, _, _ := fs.Open("p", []byte("log"))
//	_ = b.WriteAt(0, 0, []byte("hello"))
//	err := b.Sync() // fails one time in ten
//	_ = fs.Crash()  // "hello" survives only if the sync succeeded
//	snap := mem.Snapshot()
//
// # Draws
//
// Same seed, same faults: each operation draws from the generator in this
// fixed order, and only for rates strictly between 0 and 1 (see Config):
//
//   - Open, OpenVersioned, ReadAt, Remove, RemovePartition, Scan: one draw
//     for their rate, before anything else. A failed operation never
//     reaches the wrapped storage.
//   - WriteAt: nothing for a WriteSync write of zero bytes or an offset
//     overflow. Otherwise one draw for Write.FailureRate. A failed write
//     then draws its retained bytes at once (Prefix: one draw per byte up
//     to and including the first byte not kept; Subset: one per byte). A
//     WriteSync write that did not fail draws for SyncRate. An unsynced
//     write that survives in the journal draws its retained bytes lazily,
//     at the crash.
//   - Resize: one draw for Resize.FailureRate; on success a second one
//     (same rate) deciding whether the resize survives a crash; on failure
//     one for Resize.PartialRate and, if it fires and an intermediate size
//     exists, one uniform draw for that size.
//   - Sync and StartSync: one draw for SyncRate.
//   - Crash: the lazy retention draws of the surviving writes, oldest
//     first.
//
// Every injected failure is an error matching both simrt.ErrIO and
// ErrInjected: "io error: injected storage fault".
//
// # Failed syncs
//
// A failed sync (Sync, StartSync, or the sync of a WriteSync write)
// poisons its handle, as it does on disk: every later WriteAt, Resize, Sync
// and StartSync through the handle returns the same error without drawing,
// until the blob is closed and reopened. The bytes that sync should have
// made durable are not durable: no retry through the handle can sync them,
// and the reopen discards them (a crash before the reopen keeps what the
// retention policy keeps, as for any unsynced write). ReadAt still works.
//
// # Crash
//
// A successful Sync clears the journal of that handle. A StartSync leaves
// a marker that clears everything older once its handle completes
// successfully. A WriteSync write retires the journaled bytes it overwrites.
// Opening a blob discards the journal of earlier handles on it: the new
// handle has seen the durable contents, and a crash must not change them
// behind its back. Removing a blob discards its journal.
//
// A Storage is meant for one simulation: the generator it is given is not
// safe for concurrent use, so its operations must not run in parallel.
package faulty

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/fault"
)

// ErrInjected is the cause of every injected failure.
var ErrInjected = errors.New("injected storage fault")

// errNoRetain reports a crash over a storage whose blobs cannot amend
// durable state.
var errNoRetain = errors.New("faulty: Crash needs blobs that implement Retainer (memory blobs)")

func injected() error { return fmt.Errorf("%w: %w", simrt.ErrIO, ErrInjected) }

// Retainer is implemented by blobs whose durable state a crash can amend:
// the blobs of package memory. Crash needs it; the rest of faulty works over
// any simrt.Storage.
type Retainer interface {
	// RetainWrite makes durable the bytes data[i] with keep[i] true (every
	// byte when keep is nil), at logical offset.
	RetainWrite(offset uint64, data []byte, keep []bool)
	// RetainResize makes a resize to size durable.
	RetainResize(size uint64)
}

var _ simrt.Storage = (*Storage)(nil)

// Storage injects faults into the storage it wraps and journals what a
// crash may keep. Create it with New.
type Storage struct {
	inner   simrt.Storage
	rng     *rand.Rand
	cfg     *Config
	mu      sync.Mutex
	journal journal
	counts  [numOps]uint64 // injected faults by kind, see Faults

	disk       DiskFault           // see SetDiskFault
	diskEffect int                 // index in effects of the current disk fault, or -1
	sleep      func(time.Duration) // waits out DiskFault.Slow; nil ignores it
	rec        Recorder            // control events; may be nil
	now        func() time.Time    // dates effects; may be nil
	effects    []Effect            // see Effects
	scratch    Effect              // counts of no effect
}

// New wraps inner. Faults draw from rng, which the caller may share with
// other users (the simulator shares its one generator), as long as nothing
// draws from it concurrently.
func New(inner simrt.Storage, rng *rand.Rand, cfg Config) *Storage {
	return &Storage{inner: inner, rng: rng, cfg: &cfg, diskEffect: -1}
}

// Config returns the live configuration: changes through the pointer take
// effect at the next operation. Do not change it while an operation runs on
// another goroutine.
func (s *Storage) Config() *Config { return s.cfg }

func (s *Storage) roll(p float64) bool { return sample(s.rng, p) }

// Open implements simrt.Storage.Open.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned. On success it
// discards the journal of earlier handles of the blob.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	access := diskRead
	if s.diskCreates(partition, name) {
		access = diskGrow
	}
	if err := s.diskErr(access, false); err != nil {
		return nil, 0, 0, err
	}
	if s.roll(s.cfg.OpenRate) {
		return nil, 0, 0, s.fail(opOpen)
	}
	inner, size, version, err := s.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, 0, 0, err
	}
	s.journal.retire(func(b *blob) bool { return b.partition == partition && b.name == string(name) })
	return &blob{s: s, inner: inner, partition: partition, name: string(name), size: size}, size, version, nil
}

// Remove implements simrt.Storage.Remove. On success the blob's journal is
// discarded.
func (s *Storage) Remove(partition string, name []byte) error {
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.diskErr(diskMutate, false); err != nil {
		return err
	}
	if s.roll(s.cfg.RemoveRate) {
		return s.fail(opRemove)
	}
	if err := s.inner.Remove(partition, name); err != nil {
		return err
	}
	s.journal.retire(func(b *blob) bool { return b.partition == partition && b.name == string(name) })
	return nil
}

// RemovePartition implements simrt.Storage.RemovePartition. On success the
// journal of every blob of the partition is discarded.
func (s *Storage) RemovePartition(partition string) error {
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.diskErr(diskMutate, false); err != nil {
		return err
	}
	if s.roll(s.cfg.RemoveRate) {
		return s.fail(opRemove)
	}
	if err := s.inner.RemovePartition(partition); err != nil {
		return err
	}
	s.journal.retire(func(b *blob) bool { return b.partition == partition })
	return nil
}

// Scan implements simrt.Storage.Scan.
func (s *Storage) Scan(partition string) ([][]byte, error) {
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.diskErr(diskRead, false); err != nil {
		return nil, err
	}
	if s.roll(s.cfg.ScanRate) {
		return nil, s.fail(opScan)
	}
	return s.inner.Scan(partition)
}

// Crash resolves the journal as a crash would: walking back from the newest
// entry, a completed StartSync marker discards the older entries of its
// handle; the writes and resizes left are replayed, oldest first, into the
// durable state of the wrapped store (through Retainer), each write keeping
// the bytes its retention draw selects. The journal is empty afterwards.
// Call it once no task can touch the storage any more, then snapshot the
// memory store.
func (s *Storage) Crash() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := s.journal.survivors()
	s.journal = journal{}
	eff := s.addEffect(fault.Crash, "")
	for _, e := range entries {
		r, ok := e.blob.inner.(Retainer)
		if !ok {
			return errNoRetain
		}
		if e.kind == resizeEntry {
			r.RetainResize(e.size)
			continue
		}
		var keep []bool
		if e.sel != nil {
			keep = e.sel.draw(s.rng)[e.selOff : e.selOff+len(e.data)]
		}
		s.countRetained(keep, s.effect(eff))
		r.RetainWrite(e.offset, e.data, keep)
	}
	return nil
}

// Pending returns the number of journal entries: writes and resizes that a
// crash may still keep, and unfinished StartSync markers. Tests use it.
func (s *Storage) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.journal.entries)
}
