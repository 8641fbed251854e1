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
// Opens are exclusive within one Storage, as in the simulator, and a
// directory belongs to one Storage at a time: New takes an advisory lock
// (flock) on the root, and a second New on the same directory fails with
// ErrLocked until the first Storage is closed. Scan returns names sorted,
// like the memory store.
//
//	s, err := disk.New("/var/lib/app")
//	b, size, err := s.Open("log", []byte{0, 1})
//	err = b.WriteAt(size, simrt.WriteSync, []byte("record"))
//	err = b.Close()
//	err = s.Close()
//
// # Files that are not blobs
//
// Open never writes over a file it did not create: a file at a blob's path
// that is not empty and is not what an interrupted creation leaves, a
// symbolic link (never followed), a directory or any other non-regular
// file fails the open with simrt.ErrBlobCorrupt and is left as it was.
// Scan skips every entry of a partition that is not a regular file with a
// canonical blob name (an editor's backup, a "x.tmp", an uppercase hex
// name): they are not blobs, and the real blobs are still listed.
//
// # Failed syncs
//
// After a sync fails (Sync, StartSync or a WriteSync write), the kernel may
// have dropped the dirty pages it could not write, and a retried fsync may
// then succeed with the data gone. So a failed sync poisons the handle:
// every later write, resize and sync through it returns the same
// simrt.ErrBlobSyncFailed error, until the blob is closed and reopened and
// the caller has read back what is really on disk. Reads still work.
//
// # Removal
//
// RemovePartition is atomic across a crash: it renames the partition to a
// tombstone in the root (a name no partition can have), syncs the root,
// and only then deletes the files. A crash before the rename leaves the
// partition whole; after it, the partition is gone, and the next New
// finishes deleting the tombstone.
//
// A handle whose blob was removed (by Remove or RemovePartition) keeps
// reading, writing and resizing its own, unlinked, contents, like an
// *os.File on a removed path; but its Sync, StartSync and WriteSync writes
// fail with simrt.ErrBlobMissing, because nothing it holds can ever be
// found again after a crash.
//
// A Storage is safe for concurrent use by multiple goroutines.
package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var _ simrt.Storage = (*Storage)(nil)

// ErrLocked is the error New returns (wrapped, with the directory) when
// another Storage, in this process or another, holds the directory.
var ErrLocked = errors.New("disk: storage directory in use by another Storage")

// errNotRegular is the cause of the corrupt error a non-regular file at a
// blob's path gets.
var errNotRegular = errors.New("not a regular file")

// tombstonePrefix starts the name of a partition being removed. No
// partition name has a dot, so no partition can collide with it.
const tombstonePrefix = ".removing-"

// Storage is a directory of partitions of blob files. Create it with New.
type Storage struct {
	root string
	// datasync makes a file durable (fdatasync), dirsync a directory
	// (fsync); tests replace them to inject failures.
	datasync, dirsync func(*os.File) error
	// hook, when set, is called at the named points of RemovePartition;
	// tests use it to crash there.
	hook func(point string)
	mu   struct {
		sync.Mutex // serialises Open, Remove, RemovePartition and Scan
		opens      map[key]*blob
		lock       *os.File // the root, flocked; nil once closed
		tombs      int      // tombstones named so far
	}
}

type key struct{ partition, name string }

// New returns the storage rooted at root, creating the directory if needed.
// It takes an advisory lock on the directory, failing with an error
// matching ErrLocked if another Storage holds it, and finishes any
// partition removal a crash interrupted.
func New(root string) (*Storage, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", simrt.ErrIO, err)
	}
	lock, err := lockDir(root)
	if err != nil {
		return nil, err
	}
	s := &Storage{root: root, datasync: datasync, dirsync: (*os.File).Sync}
	s.mu.opens = map[key]*blob{}
	s.mu.lock = lock
	if err := s.finishRemovals(); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%w: finishing an interrupted partition removal in %s: %w", simrt.ErrIO, root, err)
	}
	return s, nil
}

// Close releases the directory lock. Blobs still open stay usable; every
// later Storage method fails with an error matching simrt.ErrClosed, and so
// does a second Close.
func (s *Storage) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.lock == nil {
		return fmt.Errorf("disk: %s: %w", s.root, simrt.ErrClosed)
	}
	err := s.mu.lock.Close()
	s.mu.lock = nil
	return err
}

// closedErr reports a call after Close; s.mu must be held.
func (s *Storage) closedErr(partition string) error {
	if s.mu.lock != nil {
		return nil
	}
	return &simrt.PartitionError{Partition: partition, Err: simrt.ErrClosed}
}

// Open implements simrt.Storage.Open.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned. A new or torn blob
// is durably created before it returns. A path that holds anything else
// than a blob or an empty file fails with ErrBlobCorrupt and is left alone.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	if err := storage.CheckOpen(partition, name, versions); err != nil {
		return nil, 0, 0, err
	}
	hexName := storage.HexName(name)
	k := key{partition, hexName}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.closedErr(partition); err != nil {
		return nil, 0, 0, err
	}
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
	path := filepath.Join(dir, hexName)
	if err := checkRegular(path); err != nil {
		return fail(simrt.ErrBlobCorrupt, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
	if err != nil {
		if cerr := checkRegular(path); cerr != nil {
			return fail(simrt.ErrBlobCorrupt, cerr) // swapped for a link meanwhile
		}
		return fail(simrt.ErrBlobOpenFailed, err)
	}
	h, err := s.resolve(f, versions)
	if err == nil && h.Fresh {
		if err = s.create(f, dir, h.Version); err != nil {
			// A creation that failed (ENOSPC on the header or its sync)
			// leaves no name behind: Scan would list it, and while the disk
			// stays full no Open could make it a blob. The file held no
			// data: it was new, empty or torn.
			f.Close()
			if rerr := os.Remove(path); rerr == nil {
				s.syncDir(dir) // best effort: a name back after a crash is a torn blob again
			}
			return fail(simrt.ErrBlobOpenFailed, err)
		}
	}
	if err != nil {
		f.Close()
		var he *storage.HeaderError
		switch {
		case errors.As(err, &he), errors.Is(err, errNotRegular):
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

// checkRegular returns nil if nothing is at path or a regular file is, and
// an error wrapping errNotRegular if something else is (a symbolic link is
// not followed).
func checkRegular(path string) error {
	st, err := os.Lstat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil // a missing file is created; other errors show at open
	}
	return fmt.Errorf("%w: %s", errNotRegular, fileType(st.Mode()))
}

func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular file"
}

// resolve reads the header of an open file.
func (s *Storage) resolve(f *os.File, versions simrt.VersionRange) (storage.Header, error) {
	st, err := f.Stat()
	if err != nil {
		return storage.Header{}, err
	}
	if !st.Mode().IsRegular() {
		return storage.Header{}, fmt.Errorf("%w: %s", errNotRegular, fileType(st.Mode()))
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
	if err := s.syncDir(dir); err != nil {
		return err
	}
	if err := s.syncDir(s.root); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(storage.NewHeader(version), 0); err != nil {
		return err
	}
	return s.datasync(f)
}

// Scan implements simrt.Storage.Scan. It lists the regular files of the
// partition whose names are canonical blob names, and skips everything
// else: what is not a blob never hides the blobs.
func (s *Storage) Scan(partition string) ([][]byte, error) {
	if err := storage.CheckPartition(partition); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.closedErr(partition); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(s.root, partition))
	if err != nil {
		return nil, &simrt.PartitionError{Partition: partition, Err: simrt.ErrPartitionMissing}
	}
	// ReadDir sorts by file name, and hex keeps the order of the bytes.
	names := make([][]byte, 0, len(entries))
	for _, e := range entries {
		name, ok := storage.ParseHexName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		names = append(names, name)
	}
	return names, nil
}

// syncDir makes the entries of a directory durable.
func (s *Storage) syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = s.dirsync(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// isTombstone reports whether a root entry is a partition being removed.
func isTombstone(name string) bool { return strings.HasPrefix(name, tombstonePrefix) }
