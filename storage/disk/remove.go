package disk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

// Remove implements simrt.Storage.Remove. The name is free at once; a
// handle still open keeps its (unlinked) file, and can no longer sync it.
func (s *Storage) Remove(partition string, name []byte) error {
	if err := storage.CheckRemove(partition, name); err != nil {
		return err
	}
	hexName := storage.HexName(name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.closedErr(partition); err != nil {
		return err
	}
	dir := filepath.Join(s.root, partition)
	if _, err := os.Stat(dir); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	if len(name) == 0 {
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobMissing}
	}
	path := filepath.Join(dir, hexName)
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		// Not a blob: never delete what is not ours.
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobMissing, Cause: errNotRegular}
	}
	if err := os.Remove(path); err != nil {
		var cause error
		if !errors.Is(err, fs.ErrNotExist) {
			cause = err
		}
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobMissing, Cause: cause}
	}
	k := key{partition, hexName}
	if b := s.mu.opens[k]; b != nil {
		b.removed.Store(true)
		delete(s.mu.opens, k)
	}
	if err := s.syncDir(dir); err != nil {
		return &simrt.BlobError{Partition: partition, Name: hexName, Err: simrt.ErrBlobSyncFailed, Cause: err}
	}
	return nil
}

// RemovePartition implements simrt.Storage.RemovePartition, atomically
// across a crash: the partition is renamed to a tombstone, the rename is
// made durable, and only then are its files deleted. A crash during the
// deletion leaves a tombstone that the next New deletes.
func (s *Storage) RemovePartition(partition string) error {
	if err := storage.CheckPartition(partition); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.closedErr(partition); err != nil {
		return err
	}
	dir := filepath.Join(s.root, partition)
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	tomb, err := s.tombstone()
	if err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing, Cause: err}
	}
	if err := os.Rename(dir, tomb); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing, Cause: err}
	}
	for k, b := range s.mu.opens {
		if k.partition == partition {
			b.removed.Store(true)
			delete(s.mu.opens, k)
		}
	}
	s.at("renamed")
	if err := s.syncDir(s.root); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrBlobSyncFailed, Cause: err}
	}
	s.at("synced")
	if err := s.removeTree(tomb); err != nil {
		// The partition is durably gone; the next New finishes the job.
		return nil
	}
	if err := s.syncDir(s.root); err != nil {
		return &simrt.PartitionError{Partition: partition, Err: simrt.ErrBlobSyncFailed, Cause: err}
	}
	return nil
}

// at calls the test hook, if any, at a named point of RemovePartition.
func (s *Storage) at(point string) {
	if s.hook != nil {
		s.hook(point)
	}
}

// tombstone returns an unused tombstone path in the root.
func (s *Storage) tombstone() (string, error) {
	for range 1 << 16 {
		s.mu.tombs++
		p := filepath.Join(s.root, tombstonePrefix+strconv.Itoa(s.mu.tombs))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
	}
	return "", errors.New("disk: no free tombstone name")
}

// removeTree deletes a tombstone one entry at a time (calling the hook
// after each file, so that a test can crash half-way), then the directory.
func (s *Storage) removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			err = os.RemoveAll(p)
		} else {
			err = os.Remove(p)
		}
		if err != nil {
			return err
		}
		s.at("deleted")
	}
	return os.Remove(dir)
}

// finishRemovals deletes the tombstones an interrupted RemovePartition
// left in the root.
func (s *Storage) finishRemovals() error {
	entries, err := os.ReadDir(s.root)
	if err != nil {
		return err
	}
	found := false
	for _, e := range entries {
		if !isTombstone(e.Name()) || !e.IsDir() {
			continue
		}
		found = true
		if err := s.removeTree(filepath.Join(s.root, e.Name())); err != nil {
			return err
		}
	}
	if found {
		return s.syncDir(s.root)
	}
	return nil
}
