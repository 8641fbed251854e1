package deterministic

import (
	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

// procStorage is one process's view of its node's disk: the node's stack,
// refused (an error wrapping simrt.ErrClosed) once the process is dead, so
// that a killed process never writes. It keeps the blobs the process has
// open, which its death closes.
type procStorage struct {
	p     *incarnation
	inner simrt.Storage
	open  []*procBlob // in open order; closed ones are removed
}

var _ simrt.Storage = (*procStorage)(nil)

func newProcStorage(p *incarnation, inner simrt.Storage) *procStorage {
	return &procStorage{p: p, inner: inner}
}

// Open implements simrt.Storage.Open.
func (s *procStorage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (s *procStorage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	if s.p.dead {
		return nil, 0, 0, s.p.deadErr("open")
	}
	inner, size, version, err := s.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, 0, 0, err
	}
	b := &procBlob{s: s, inner: inner}
	s.open = append(s.open, b)
	return b, size, version, nil
}

// Remove implements simrt.Storage.Remove.
func (s *procStorage) Remove(partition string, name []byte) error {
	if s.p.dead {
		return s.p.deadErr("remove")
	}
	return s.inner.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *procStorage) RemovePartition(partition string) error {
	if s.p.dead {
		return s.p.deadErr("remove partition")
	}
	return s.inner.RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan.
func (s *procStorage) Scan(partition string) ([][]byte, error) {
	if s.p.dead {
		return nil, s.p.deadErr("scan")
	}
	return s.inner.Scan(partition)
}

// closeAll closes every blob the dead process left open, in open order,
// into the disk's page cache (the next open sees their unsynced writes,
// which stay pending for a crash), as after a kill; a power loss drops the
// cache afterwards.
func (s *procStorage) closeAll() {
	open := s.open
	s.open = nil
	for _, b := range open {
		b.closed = true
		_ = b.inner.Close() // the process is gone: nobody sees the error
	}
}

// drop forgets b once closed.
func (s *procStorage) drop(b *procBlob) {
	for i, o := range s.open {
		if o == b {
			s.open = append(s.open[:i], s.open[i+1:]...)
			return
		}
	}
}

// procBlob is a blob opened by a process; it fails once the process is
// dead.
type procBlob struct {
	s      *procStorage
	inner  simrt.Blob
	closed bool
}

var _ simrt.Blob = (*procBlob)(nil)

func (b *procBlob) dead() bool { return b.s.p.dead }

// ReadAt implements simrt.Blob.ReadAt.
func (b *procBlob) ReadAt(p []byte, offset uint64) error {
	if b.dead() {
		return b.s.p.deadErr("read")
	}
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt.
func (b *procBlob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	if b.dead() {
		return b.s.p.deadErr("write")
	}
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *procBlob) Resize(size uint64) error {
	if b.dead() {
		return b.s.p.deadErr("resize")
	}
	return b.inner.Resize(size)
}

// Sync implements simrt.Blob.Sync.
func (b *procBlob) Sync() error {
	if b.dead() {
		return b.s.p.deadErr("sync")
	}
	return b.inner.Sync()
}

// StartSync implements simrt.Blob.StartSync.
func (b *procBlob) StartSync() *simrt.Handle[struct{}] {
	if b.dead() {
		return storage.Ready(struct{}{}, b.s.p.deadErr("sync"))
	}
	return b.inner.StartSync()
}

// Close implements simrt.Blob.Close.
func (b *procBlob) Close() error {
	if b.dead() {
		return b.s.p.deadErr("close")
	}
	if !b.closed {
		b.closed = true
		b.s.drop(b)
	}
	return b.inner.Close()
}

// crashNodes crashes every node's disk at the end of the run, in AddNode
// order (unsynced writes resolved by each node's fault configuration), and
// returns the disks by node name for the checkpoint, with those of the
// checkpoint this run resumed that no node took back.
func (rt *runtime) crashNodes() map[string]storageCheckpoint {
	if len(rt.nodes.list) == 0 {
		return rt.nodes.disks
	}
	disks := rt.nodes.disks
	if disks == nil {
		disks = make(map[string]storageCheckpoint)
	}
	for _, n := range rt.nodes.list {
		st := n.disk.st
		if err := st.fault.Crash(); err != nil {
			panic("deterministic: storage crash of node " + n.cfg.Name + ": " + err.Error())
		}
		st.mem.DropPageCache()
		disks[n.cfg.Name] = storageCheckpoint{snap: st.mem.Snapshot(), faults: *st.fault.Config()}
	}
	return disks
}
