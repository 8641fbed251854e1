// Package disk is the production blob store: one file per blob, at
// <root>/<partition>/<lowercase hex of the name>, header and data together
// (logical byte 0 at file offset 4096).
//
// Reads and writes are positional (pread/pwrite), so a blob may be read
// from several goroutines at once. WriteSync writes and Sync use fdatasync
// on Linux (fsync elsewhere). Creating a blob fsyncs its partition and the
// root directory, then truncates the file, writes the header and syncs it;
// a crash anywhere in between leaves a file that the next open recognises
// as a torn creation and recreates (see storage.Resolve), never one that
// silently loses data. Removal fsyncs the directory it removed from.
//
// Opens are exclusive within one Storage, as in the simulator. Scan
// returns names sorted, like the memory store.
//
//	s, err := disk.New("/var/lib/app")
//	b, size, err := s.Open("log", []byte{0, 1})
//	err = b.WriteAt(size, simrt.WriteSync, []byte("record"))
//	err = b.Close()
//
// A Storage is safe for concurrent use by multiple goroutines.
package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var _ simrt.Storage = (*Storage)(nil)

// Storage is a directory of partitions of blob files. Create it with New.
type Storage struct {
	root string
	mu   struct {
		sync.Mutex // serialises Open, Remove and Scan
		opens      map[key]*blob
	}
}

type key struct{ partition, name string }

// New returns the storage rooted at root, creating the directory if needed.
func New(root string) (*Storage, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", simrt.ErrIO, err)
	}
	s := &Storage{root: root}
	s.mu.opens = map[key]*blob{}
	return s, nil
}

// Open implements simrt.Storage.Open.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned. A new or torn blob
// is durably created before it returns.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	if err := storage.CheckOpen(partition, name); err != nil {
		return nil, 0, 0, err
	}
	hexName := storage.HexName(name)
	k := key{partition, hexName}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.opens[k] != nil {
		return nil, 0, 0, &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobAlreadyOpen}
	}
	dir := filepath.Join(s.root, partition)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, 0, &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionCreationFailed, Cause: err}
	}
	fail := func(cond, cause error) (simrt.Blob, uint64, uint16, error) {
		return nil, 0, 0, &simrt.BlobError{Partition: partition, Name: hexName, Err: cond, Cause: cause}
	}
	f, err := os.OpenFile(filepath.Join(dir, hexName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fail(simrt.ErrBlobOpenFailed, err)
	}
	h, err := s.resolve(f, versions)
	if err == nil && h.Fresh {
		err = s.create(f, dir, h.Version)
	}
	if err != nil {
		f.Close()
		var he *storage.HeaderError
		switch {
		case errors.As(err, &he):
			return fail(simrt.ErrBlobCorrupt, err)
		case errors.Is(err, simrt.ErrBlobVersionMismatch):
			return nil, 0, 0, err
		}
		return fail(simrt.ErrBlobOpenFailed, err)
	}
	b := &blob{s: s, k: k, partition: partition, name: hexName, f: f, off: int64(h.DataOffset)}
	s.mu.opens[k] = b
	return b, h.Size, h.Version, nil
}

// resolve reads the header of an open file.
func (s *Storage) resolve(f *os.File, versions simrt.VersionRange) (storage.Header, error) {
	st, err := f.Stat()
	if err != nil {
		return storage.Header{}, err
	}
	raw := uint64(st.Size())
	head := make([]byte, min(raw, storage.HeaderSize))
	if _, err := f.ReadAt(head, 0); err != nil {
		return storage.Header{}, err
	}
	return storage.Resolve(head, raw, versions)
}

// create makes f a new, empty blob of the given version, durably: the
// directory entries first, then the header.
func (s *Storage) create(f *os.File, dir string, version uint16) error {
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := syncDir(s.root); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(storage.NewHeader(version), 0); err != nil {
		return err
	}
	return datasync(f)
}

// Remove implements simrt.Storage.Remove. The name is free at once; a
// handle still open keeps its (unlinked) file.
func (s *Storage) Remove(partition string, name []byte) error {
	if err := storage.CheckPartition(partition); err != nil {
		return err
	}
	hexName := storage.HexName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Join(s.root, partition)
	if _, err := os.Stat(dir); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	if len(name) == 0 {
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobMissing}
	}
	if err := os.Remove(filepath.Join(dir, hexName)); err != nil {
		var cause error
		if !errors.Is(err, fs.ErrNotExist) {
			cause = err
		}
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobMissing, Cause: cause}
	}
	delete(s.mu.opens, key{partition, hexName})
	if err := syncDir(dir); err != nil {
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobSyncFailed, Cause: err}
	}
	return nil
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *Storage) RemovePartition(partition string) error {
	if err := storage.CheckPartition(partition); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Join(s.root, partition)
	if _, err := os.Stat(dir); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	if err := os.RemoveAll(dir); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing, Cause: err}
	}
	for k := range s.mu.opens {
		if k.partition == partition {
			delete(s.mu.opens, k)
		}
	}
	if err := syncDir(s.root); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrBlobSyncFailed, Cause: err}
	}
	return nil
}

// Scan implements simrt.Storage.Scan. Anything in the partition that is not
// a blob file with a canonical hex name fails it with ErrPartitionCorrupt.
func (s *Storage) Scan(partition string) ([][]byte, error) {
	if err := storage.CheckPartition(partition); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(filepath.Join(s.root, partition))
	if err != nil {
		return nil, &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	// ReadDir sorts by file name, and hex keeps the order of the bytes.
	names := make([][]byte, 0, len(entries))
	for _, e := range entries {
		name, ok := storage.ParseHexName(e.Name())
		if !ok || !e.Type().IsRegular() {
			return nil, &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionCorrupt}
		}
		names = append(names, name)
	}
	return names, nil
}

// syncDir makes the entries of a directory durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
