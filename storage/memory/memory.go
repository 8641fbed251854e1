// Package memory is the simulator's blob store: correct, fault-free, and
// exact about durability.
//
// The store keeps the durable contents of every blob (header included).
// Each open handle works on a private copy: writes and resizes change only
// that copy until Sync (or a WriteSync write) copies them into durable
// state. Close keeps the copy as the blob's page cache, as the operating
// system does: the next open sees the unsynced writes and resizes (still
// unsynced), so that closing and reopening a blob loses nothing, as on
// disk. A crash (see package faulty) keeps only durable state: it drops the
// page cache (DropPageCache), and Snapshot moves durable state out and
// Restore brings it back.
//
// Each open gets a new generation. Removing a blob forgets its generation,
// so a handle on a removed blob can still read, write and resize its own
// copy, like an *os.File on a removed path, but can never make anything
// durable (its Sync and WriteSync writes fail with simrt.ErrBlobMissing),
// and never touches a newer blob of the same name.
//
// Opens are exclusive: a second open of a blob that is open fails with
// simrt.ErrBlobAlreadyOpen until the first handle is closed or the blob is
// removed.
//
// The smallest use:
//
//	s := memory.New()
//	b, _, _ := s.Open("p", []byte("log"))
//	_ = b.WriteAt(0, simrt.WriteSync, []byte("hello"))
//	_ = b.WriteAt(5, 0, []byte(" world")) // never synced: in the page cache
//	_ = b.Close()
//	data, _ := s.LogicalBlob("p", []byte("log")) // "hello": what is durable
//	r := memory.Restore(s.Snapshot())             // what survives a crash
//
// A Storage is safe for concurrent use, though the simulator only ever uses
// it from one task at a time. Memory blobs are limited to MaxSize bytes.
package memory

import (
	"slices"
	"sync"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

// MaxSize is the largest logical size of a memory blob. A write or resize
// past it fails with simrt.ErrOffsetOverflow rather than exhausting memory.
const MaxSize = 1 << 32

var _ simrt.Storage = (*Storage)(nil)

// Storage is an in-memory blob store. Create it with New or Restore.
type Storage struct {
	mu    sync.Mutex
	parts map[string]map[string]*file // partition → name → durable file
	gen   uint64                      // last generation handed out
}

// file is the durable state of one blob, and who has it open.
type file struct {
	data []byte // durable bytes, header included
	gen  uint64 // generation of the latest open; 0 before the first
	open bool   // the handle of generation gen is open
	// cache is the page cache the last closed handle left, unsynced
	// writes and resizes included: the bytes the next open sees instead of
	// data, which stays what is durable. Nil when there is none.
	cache []byte
}

// New returns an empty store.
func New() *Storage { return &Storage{parts: map[string]map[string]*file{}} }

// Open implements simrt.Storage.Open.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned. A missing partition
// and blob are created, durably, at once. A blob that is new, or was left
// torn by an interrupted creation, gets a fresh header.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	if err := storage.CheckOpen(partition, name, versions); err != nil {
		return nil, 0, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.parts[partition][string(name)]
	if f != nil && f.open {
		return nil, 0, 0, &simrt.BlobError{Partition: partition, Name: storage.HexName(name), Err: simrt.ErrBlobAlreadyOpen}
	}
	var raw []byte
	if f != nil {
		raw = f.data
		if f.cache != nil {
			raw = f.cache
		}
	}
	h, err := storage.Resolve(raw, uint64(len(raw)), versions)
	if err != nil {
		return nil, 0, 0, corrupt(partition, name, err)
	}
	if f == nil {
		part := s.parts[partition]
		if part == nil {
			part = map[string]*file{}
			s.parts[partition] = part
		}
		f = &file{}
		part[string(name)] = f
	}
	if h.Fresh {
		f.data = storage.NewHeader(h.Version)
		f.cache = nil
	}
	s.gen++
	f.gen, f.open = s.gen, true
	b := &blob{
		s:         s,
		partition: partition,
		name:      string(name),
		gen:       s.gen,
		off:       h.DataOffset,
		content:   slices.Clone(f.data),
	}
	if f.cache != nil {
		// The cached bytes are the handle's, not yet durable: all dirty.
		b.content, f.cache = f.cache, nil
		b.dirtyLo, b.dirtyHi = 0, uint64(len(b.content))
	}
	return b, h.Size, h.Version, nil
}

// DropPageCache forgets every page cache, as a power loss does: the next
// open of each blob sees its durable contents.
func (s *Storage) DropPageCache() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, part := range s.parts { // order does not matter: each file alone
		for _, f := range part {
			f.cache = nil
		}
	}
}

// corrupt wraps a header error in the error an open returns.
func corrupt(partition string, name []byte, err error) error {
	if _, ok := err.(*storage.HeaderError); ok {
		return &simrt.BlobError{Partition: partition, Name: storage.HexName(name), Err: simrt.ErrBlobCorrupt, Cause: err}
	}
	return err
}

// Remove implements simrt.Storage.Remove.
func (s *Storage) Remove(partition string, name []byte) error {
	if err := storage.CheckRemove(partition, name); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	part, ok := s.parts[partition]
	if !ok {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	if _, ok := part[string(name)]; !ok {
		return &simrt.BlobError{Partition: partition, Name: storage.HexName(name), Err: simrt.ErrBlobMissing}
	}
	delete(part, string(name))
	return nil
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *Storage) RemovePartition(partition string) error {
	if err := storage.CheckPartition(partition); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.parts[partition]; !ok {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	delete(s.parts, partition)
	return nil
}

// Scan implements simrt.Storage.Scan. Names come sorted.
func (s *Storage) Scan(partition string) ([][]byte, error) {
	if err := storage.CheckPartition(partition); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	part, ok := s.parts[partition]
	if !ok {
		return nil, &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	names := sortedKeys(part)
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i] = []byte(n)
	}
	return out, nil
}

// current returns the durable file of a handle's generation, or
// ErrBlobMissing if its blob (or partition) was removed.
func (s *Storage) current(b *blob) (*file, error) {
	f, ok := s.parts[b.partition][b.name]
	if !ok || f.gen != b.gen {
		return nil, &simrt.BlobError{Partition: b.partition, Name: storage.HexName([]byte(b.name)), Err: simrt.ErrBlobMissing}
	}
	return f, nil
}

// LogicalBlob returns a copy of a blob's durable logical contents, without
// opening it. It reports false when the blob is missing or its header does
// not resolve.
func (s *Storage) LogicalBlob(partition string, name []byte) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.parts[partition][string(name)]
	if !ok {
		return nil, false
	}
	h, err := storage.Resolve(f.data, uint64(len(f.data)), simrt.VersionRange{Min: 0, Max: ^uint16(0)})
	if err != nil {
		return nil, false
	}
	if h.Fresh {
		return []byte{}, true
	}
	return slices.Clone(f.data[h.DataOffset:]), true
}
