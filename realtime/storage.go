package realtime

import (
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/shell"
	"github.com/simrt/simrt/storage/disk"
)

// initStorage wires the production storage, the shell's stack: blob
// tracking (below) over metered over disk. The directory is created on
// first use, so a program that never touches storage leaves nothing on
// disk.
func (rt *runtime) initStorage() {
	rt.disk = &lazyDisk{dir: rt.cfg.StorageDirectory}
	track := func(s simrt.Storage) simrt.Storage { return &tracking{rt: rt, inner: s} }
	rt.storage = shell.StorageStack(rt.disk, nil, rt.sh.Registry.Registerer(), track)
}

// tracking is the outermost layer of the storage: it tracks every blob it
// opens (see trackBlob).
type tracking struct {
	rt    *runtime
	inner simrt.Storage
}

var _ simrt.Storage = (*tracking)(nil)

// Open implements simrt.Storage.Open on files under
// Config.StorageDirectory.
func (s *tracking) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, err := s.inner.Open(partition, name)
	if err != nil {
		return nil, 0, err
	}
	return s.rt.trackBlob(b), size, nil
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (s *tracking) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	b, size, v, err := s.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, 0, 0, err
	}
	return s.rt.trackBlob(b), size, v, nil
}

// Remove implements simrt.Storage.Remove.
func (s *tracking) Remove(partition string, name []byte) error {
	return s.inner.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *tracking) RemovePartition(partition string) error { return s.inner.RemovePartition(partition) }

// Scan implements simrt.Storage.Scan.
func (s *tracking) Scan(partition string) ([][]byte, error) { return s.inner.Scan(partition) }

// closeStorage releases the storage directory (its lock) at shutdown,
// once every blob is closed, so that the next runtime on the directory can
// take it.
func (rt *runtime) closeStorage() {
	if l, ok := rt.disk.(*lazyDisk); ok {
		l.close()
	}
}

// lazyDisk is a disk.Storage made on first use.
type lazyDisk struct {
	dir    string
	mu     sync.Mutex
	s      *disk.Storage
	err    error
	closed bool
}

func (l *lazyDisk) get() (*disk.Storage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil && l.err == nil && !l.closed {
		l.s, l.err = disk.New(l.dir)
	}
	if l.closed {
		return nil, simrt.ErrClosed
	}
	return l.s, l.err
}

// close releases the directory, if it was ever taken.
func (l *lazyDisk) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.s != nil {
		l.s.Close()
	}
}

func (l *lazyDisk) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	s, err := l.get()
	if err != nil {
		return nil, 0, err
	}
	return s.Open(partition, name)
}

func (l *lazyDisk) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	s, err := l.get()
	if err != nil {
		return nil, 0, 0, err
	}
	return s.OpenVersioned(partition, name, versions)
}

func (l *lazyDisk) Remove(partition string, name []byte) error {
	s, err := l.get()
	if err != nil {
		return err
	}
	return s.Remove(partition, name)
}

func (l *lazyDisk) RemovePartition(partition string) error {
	s, err := l.get()
	if err != nil {
		return err
	}
	return s.RemovePartition(partition)
}

func (l *lazyDisk) Scan(partition string) ([][]byte, error) {
	s, err := l.get()
	if err != nil {
		return nil, err
	}
	return s.Scan(partition)
}

// trackBlob registers b so that a blob still open when every task has
// ended is closed (its file descriptor released) before Start returns.
// Blobs are closed after the tasks, never under them: a task unwinding at
// shutdown may still sync its blobs.
func (rt *runtime) trackBlob(b simrt.Blob) simrt.Blob {
	tb := &blob{rt: rt, inner: b}
	rt.blobs.add(tb)
	return tb
}

type blob struct {
	rt     *runtime
	inner  simrt.Blob
	closed atomic.Bool
}

var _ simrt.Blob = (*blob)(nil)

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error { return b.inner.ReadAt(p, offset) }

// WriteAt implements simrt.Blob.WriteAt.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *blob) Resize(size uint64) error { return b.inner.Resize(size) }

// Sync implements simrt.Blob.Sync.
func (b *blob) Sync() error { return b.inner.Sync() }

// StartSync implements simrt.Blob.StartSync.
func (b *blob) StartSync() *simrt.Handle[struct{}] { return b.inner.StartSync() }

// Close implements simrt.Blob.Close.
func (b *blob) Close() error {
	if b.closed.CompareAndSwap(false, true) {
		b.rt.blobs.remove(b)
	}
	return b.inner.Close()
}
