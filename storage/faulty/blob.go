package faulty

import (
	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var _ simrt.Blob = (*blob)(nil)

// blob injects faults into one handle and journals its mutations.
type blob struct {
	s         *Storage
	inner     simrt.Blob
	partition string
	name      string
	size      uint64 // end of the last write or resize: the base of partial resizes
	// poisoned is the error of the first failed sync of this handle. Every
	// later write, resize and sync returns it, drawing nothing: the bytes
	// that sync should have made durable may be gone (the fsync lesson of
	// PostgreSQL), and a retry must not pretend otherwise.
	poisoned error
	// dirty is set while the handle holds writes or resizes no Sync or
	// StartSync has covered: a read-only disk fails its syncs.
	dirty bool
}

// poison records a failed sync and returns its error.
func (b *blob) poison(err error) error {
	if b.poisoned == nil {
		b.poisoned = err
	}
	return b.poisoned
}

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error {
	s := b.s
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.diskErr(diskRead, false); err != nil {
		return err
	}
	if s.roll(s.cfg.ReadRate) {
		return s.fail(opRead)
	}
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt, with the faults and journaling
// described in the package documentation.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	s := b.s
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.poisoned != nil {
		return b.poisoned
	}
	n := storage.Len(bufs)
	if err := s.diskErr(b.writeAccess(offset, n), false); err != nil {
		return err
	}
	syncing := opts&simrt.WriteSync != 0
	if syncing && n == 0 {
		return b.inner.WriteAt(offset, opts, bufs...)
	}
	cfg := s.cfg.Write
	if n == 0 {
		// Nothing to write or journal, at any offset; the draw is kept so
		// that an empty write may still fail.
		if s.roll(cfg.FailureRate) {
			return s.fail(opWrite)
		}
		return b.inner.WriteAt(offset, opts, bufs...)
	}
	if !syncing {
		b.dirty = true
	}
	end, err := storage.End(offset, n)
	if err != nil {
		return err
	}
	retain := cfg.RetentionRate > 0
	if s.roll(cfg.FailureRate) {
		if retain {
			if err := b.retainFailed(offset, opts, concat(bufs, n), newSelection(cfg, n)); err != nil {
				return err
			}
		}
		return s.fail(opWrite)
	}
	if syncing && s.roll(s.cfg.SyncRate) {
		// The bytes reach the handle but not the disk.
		if err := b.inner.WriteAt(offset, opts&^simrt.WriteSync, bufs...); err != nil {
			return err
		}
		b.size = max(b.size, end)
		if retain {
			s.journal.push(&entry{kind: writeEntry, blob: b, offset: offset, data: concat(bufs, n), sel: newSelection(cfg, n)})
		}
		return b.poison(s.fail(opSync))
	}
	if err := b.inner.WriteAt(offset, opts, bufs...); err != nil {
		return err
	}
	b.size = max(b.size, end)
	switch {
	case syncing && len(s.journal.entries) > 0:
		s.journal.durable(b, offset, lazyConcat(bufs, n))
	case retain:
		s.journal.push(&entry{kind: writeEntry, blob: b, offset: offset, data: concat(bufs, n), sel: newSelection(cfg, n)})
	}
	return nil
}

// writeAccess says what a write of n bytes at offset does to the disk: it
// grows the blob when it ends past the handle's size.
func (b *blob) writeAccess(offset uint64, n int) diskAccess {
	if n > 0 && (offset > b.size || uint64(n) > b.size-offset) {
		return diskGrow
	}
	return diskMutate
}

// retainFailed writes, durably, each run of bytes of a failed write that
// its selection keeps.
func (b *blob) retainFailed(offset uint64, opts simrt.WriteOptions, data []byte, sel *selection) error {
	var keep []bool
	if sel != nil {
		keep = sel.draw(b.s.rng)
	}
	for i := 0; i < len(data); {
		if keep != nil && !keep[i] {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && (keep == nil || keep[j]) {
			j++
		}
		at := offset + uint64(i)
		if err := b.inner.WriteAt(at, opts|simrt.WriteSync, data[i:j]); err != nil {
			return err
		}
		b.size = max(b.size, at+uint64(j-i))
		b.s.journal.durable(b, at, data[i:j])
		i = j
	}
	return nil
}

// Resize implements simrt.Blob.Resize, with the faults and journaling
// described in the package documentation.
func (b *blob) Resize(size uint64) error {
	s := b.s
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.poisoned != nil {
		return b.poisoned
	}
	access := diskMutate
	if size > b.size {
		access = diskGrow
	}
	if err := s.diskErr(access, false); err != nil {
		return err
	}
	b.dirty = true
	cfg := s.cfg.Resize
	if s.roll(cfg.FailureRate) {
		if s.roll(cfg.PartialRate) {
			lo, hi := min(b.size, size), max(b.size, size)
			if hi-lo >= 2 {
				mid := lo + 1 + s.rng.Uint64N(hi-lo-1)
				if err := b.inner.Resize(mid); err != nil {
					return err
				}
				b.size = mid
				s.journal.push(&entry{kind: resizeEntry, blob: b, size: mid})
			}
		}
		return s.fail(opResize)
	}
	retain := s.roll(cfg.FailureRate)
	if err := b.inner.Resize(size); err != nil {
		return err
	}
	b.size = size
	if retain {
		s.journal.push(&entry{kind: resizeEntry, blob: b, size: size})
	}
	return nil
}

// Sync implements simrt.Blob.Sync. A successful sync clears the handle's
// journal; a failed one poisons the handle.
func (b *blob) Sync() error {
	s := b.s
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.poisoned != nil {
		return b.poisoned
	}
	if err := s.diskErr(diskSync, b.dirty); err != nil {
		return b.poison(err)
	}
	if s.roll(s.cfg.SyncRate) {
		return b.poison(s.fail(opSync))
	}
	if err := b.inner.Sync(); err != nil {
		return err
	}
	b.dirty = false
	s.journal.synced(b)
	return nil
}

// StartSync implements simrt.Blob.StartSync. The handle's journal is
// cleared, up to this call, once the returned handle completes
// successfully, even if nobody awaits it. An injected failure poisons the
// handle, as a failed Sync does.
func (b *blob) StartSync() *simrt.Handle[struct{}] {
	s := b.s
	s.diskSlow()
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.poisoned != nil {
		return storage.Ready(struct{}{}, b.poisoned)
	}
	if err := s.diskErr(diskSync, b.dirty); err != nil {
		return storage.Ready(struct{}{}, b.poison(err))
	}
	if s.roll(s.cfg.SyncRate) {
		return storage.Ready(struct{}{}, b.poison(s.fail(opSync)))
	}
	h := b.inner.StartSync()
	b.dirty = false
	if h.Done() {
		if _, err := h.Await(nil); err == nil {
			s.journal.synced(b)
		}
		return h
	}
	s.journal.compact()
	s.journal.push(&entry{kind: syncEntry, blob: b, done: h})
	return h
}

// Close implements simrt.Blob.Close. The handle's journal stays: a crash
// may still keep its unsynced writes, unless the blob is reopened or
// removed first. The wrapped store keeps them for the next open (a memory
// store's page cache, a file's), except on a handle whose sync failed: its
// unsynced bytes are dropped first when the wrapped blob can (see
// Discarder), since the kernel may have dropped the pages it could not
// write.
func (b *blob) Close() error {
	b.s.mu.Lock()
	poisoned := b.poisoned != nil
	b.s.mu.Unlock()
	if d, ok := b.inner.(Discarder); ok && poisoned {
		d.DropUnsynced()
	}
	return b.inner.Close()
}

// Discarder is implemented by blobs that can forget their unsynced writes
// and resizes before a Close (the blobs of package memory).
type Discarder interface {
	// DropUnsynced makes the handle's contents its blob's durable contents
	// again.
	DropUnsynced()
}

// concat returns the n bytes of bufs in a new slice.
func concat(bufs [][]byte, n int) []byte {
	out := make([]byte, 0, n)
	for _, p := range bufs {
		out = append(out, p...)
	}
	return out
}

// lazyConcat avoids a copy when there is one buffer: the journal copies
// only what it keeps.
func lazyConcat(bufs [][]byte, n int) []byte {
	if len(bufs) == 1 {
		return bufs[0]
	}
	return concat(bufs, n)
}
