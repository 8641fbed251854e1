package memory

import (
	"fmt"
	"slices"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var _ simrt.Blob = (*blob)(nil)

// blob is an open handle: a private copy of the blob, and the generation
// that may make it durable.
type blob struct {
	s         *Storage
	partition string
	name      string
	gen       uint64
	off       uint64 // physical offset of logical byte 0
	content   []byte // private copy, header included
	// dirty is a physical range that may differ from durable state. Bytes
	// outside it are equal, and bytes past len(durable) are dirty too.
	dirtyLo, dirtyHi uint64
	closed           bool
}

func (b *blob) hexName() string { return storage.HexName([]byte(b.name)) }

func (b *blob) closedErr() error {
	return &simrt.BlobError{Partition: b.partition, Name: b.hexName(), Err: simrt.ErrClosed}
}

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return b.closedErr()
	}
	if len(p) == 0 {
		return nil // at any offset, as the interface promises
	}
	end, err := storage.End(offset, len(p))
	if err != nil {
		return err
	}
	if end > uint64(len(b.content))-b.off {
		return simrt.ErrBlobInsufficientLength
	}
	copy(p, b.content[b.off+offset:])
	return nil
}

// WriteAt implements simrt.Blob.WriteAt. A write of zero bytes does
// nothing, even past the end, as on disk (and as os.File.WriteAt does). A
// WriteSync write through a handle whose blob was removed fails with
// ErrBlobMissing and writes nothing.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return b.closedErr()
	}
	n := storage.Len(bufs)
	if n == 0 {
		return nil
	}
	end, err := storage.End(offset, n)
	if err != nil {
		return err
	}
	if end > MaxSize {
		return fmt.Errorf("%w: write end %d is past memory.MaxSize (%d)", simrt.ErrOffsetOverflow, end, uint64(MaxSize))
	}
	var f *file
	if opts&simrt.WriteSync != 0 {
		if f, err = b.s.current(b); err != nil {
			return err
		}
	}
	start := b.off + offset
	b.content = extend(b.content, b.off+end)
	b.markDirty(start, b.off+end)
	at := start
	for _, buf := range bufs {
		copy(b.content[at:], buf)
		at += uint64(len(buf))
	}
	if f != nil {
		f.data = extend(f.data, b.off+end)
		copy(f.data[start:], b.content[start:b.off+end])
	}
	return nil
}

// markDirty adds [lo, hi) to the dirty range, along with any gap a growing
// copy opened between the old end and lo.
func (b *blob) markDirty(lo, hi uint64) {
	if lo >= hi {
		return
	}
	if b.dirtyLo == b.dirtyHi {
		b.dirtyLo, b.dirtyHi = lo, hi
		return
	}
	b.dirtyLo, b.dirtyHi = min(b.dirtyLo, lo), max(b.dirtyHi, hi)
}

// Resize implements simrt.Blob.Resize. It changes only the handle's copy.
func (b *blob) Resize(size uint64) error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return b.closedErr()
	}
	if size > MaxSize {
		return fmt.Errorf("%w: size %d is past memory.MaxSize (%d)", simrt.ErrOffsetOverflow, size, uint64(MaxSize))
	}
	old := uint64(len(b.content))
	phys := b.off + size
	if phys < old {
		b.content = b.content[:phys]
		b.markDirty(phys, old)
	} else {
		b.content = extend(b.content, phys)
		b.markDirty(old, phys)
	}
	return nil
}

// Sync implements simrt.Blob.Sync: the durable blob becomes the handle's
// copy. A handle whose blob (or partition) was removed fails with
// ErrBlobMissing.
func (b *blob) Sync() error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return b.closedErr()
	}
	f, err := b.s.current(b)
	if err != nil {
		return err
	}
	n := uint64(len(b.content))
	old := uint64(len(f.data))
	f.data = resize(f.data, n)
	lo, hi := min(b.dirtyLo, n), min(b.dirtyHi, n)
	copy(f.data[lo:hi], b.content[lo:hi])
	if old < n {
		// Bytes past the old durable end are new whatever the range says.
		copy(f.data[old:], b.content[old:])
	}
	b.dirtyLo, b.dirtyHi = 0, 0
	return nil
}

// StartSync implements simrt.Blob.StartSync. The sync happens at once; the
// handle is already complete.
func (b *blob) StartSync() *simrt.Handle[struct{}] {
	return storage.Ready(struct{}{}, b.Sync())
}

// Close implements simrt.Blob.Close. It releases the open if this handle's
// generation is still the blob's latest, leaving its unsynced writes and
// resizes in the blob's page cache for the next open (see the package
// doc); a second Close fails with ErrClosed.
func (b *blob) Close() error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return b.closedErr()
	}
	b.closed = true
	if f, ok := b.s.parts[b.partition][b.name]; ok && f.gen == b.gen {
		f.open = false
		if b.dirtyLo != b.dirtyHi || len(b.content) != len(f.data) {
			f.cache = b.content // unsynced: the page cache keeps it
		}
	}
	b.content = nil
	return nil
}

// DropUnsynced forgets the handle's writes and resizes no sync made
// durable: its copy becomes the blob's durable contents again, so that its
// Close leaves no page cache. Package faulty calls it for a handle whose
// sync failed (the kernel may have dropped those pages). It does nothing
// on a closed handle or one whose blob was removed or reopened.
func (b *blob) DropUnsynced() {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if b.closed {
		return
	}
	if f, err := b.s.current(b); err == nil {
		b.content = slices.Clone(f.data)
		b.dirtyLo, b.dirtyHi = 0, 0
	}
}

// RetainWrite merges into durable state the bytes data[i] with keep[i] true
// (every byte when keep is nil), as if they had been written at logical
// offset and synced, extending the durable blob with zeros if needed. It
// does nothing if the handle's blob has been removed or reopened since. The
// crash replay of package faulty calls it; it works on closed handles too.
func (b *blob) RetainWrite(offset uint64, data []byte, keep []bool) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	f, err := b.s.current(b)
	if err != nil {
		return
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
		at := b.off + offset + uint64(i)
		f.data = extend(f.data, at+uint64(j-i))
		copy(f.data[at:], data[i:j])
		i = j
	}
}

// RetainResize resizes the durable blob to size logical bytes, as if a
// resize had been synced. Like RetainWrite it ignores stale handles.
func (b *blob) RetainResize(size uint64) {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if f, err := b.s.current(b); err == nil {
		f.data = resize(f.data, b.off+size)
	}
}

// extend grows s with zeros to n bytes; it never shrinks.
func extend(s []byte, n uint64) []byte {
	if uint64(len(s)) >= n {
		return s
	}
	return resize(s, n)
}

// resize sets the length of s to n, zeroing any new bytes.
func resize(s []byte, n uint64) []byte {
	l := uint64(len(s))
	if n <= l {
		return s[:n]
	}
	if n <= uint64(cap(s)) {
		s = s[:n]
		clear(s[l:])
		return s
	}
	// Double the capacity: appends of small writes stay amortised, and
	// large blobs are copied fewer times than append's growth would.
	grown := make([]byte, n, max(n, 2*uint64(cap(s))))
	copy(grown, s)
	return grown
}
