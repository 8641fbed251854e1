package disk

import (
	"errors"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var _ simrt.Blob = (*blob)(nil)

// blob is one open blob file.
type blob struct {
	s         *Storage
	k         key
	partition string
	name      string // hex
	f         *os.File
	off       int64 // file offset of logical byte 0
	closed    atomic.Bool
	removed   atomic.Bool           // the blob was removed while open
	poisoned  atomic.Pointer[error] // the error of the first failed sync
	syncs     sync.WaitGroup        // StartSync goroutines still running
}

func (b *blob) fail(cond, cause error) error {
	return &simrt.BlobError{Partition: b.partition, Name: b.name, Err: cond, Cause: cause}
}

// mutable returns the error a write, resize or sync gets before it
// starts: ErrClosed, or the error of an earlier failed sync.
func (b *blob) mutable() error {
	if b.closed.Load() {
		return b.fail(simrt.ErrClosed, nil)
	}
	if p := b.poisoned.Load(); p != nil {
		return *p
	}
	return nil
}

// durable returns the error a sync gets before it starts: that of
// mutable, or ErrBlobMissing if the blob was removed.
func (b *blob) durable() error {
	if err := b.mutable(); err != nil {
		return err
	}
	if b.removed.Load() {
		return b.fail(simrt.ErrBlobMissing, nil)
	}
	return nil
}

// sync makes the file durable. A failure poisons the handle: the kernel
// may have dropped the pages it could not write, so no later sync may
// claim otherwise.
func (b *blob) sync() error {
	serr := b.s.datasync(b.f)
	if serr == nil {
		return nil
	}
	err := b.fail(simrt.ErrBlobSyncFailed, serr)
	if !b.poisoned.CompareAndSwap(nil, &err) {
		err = *b.poisoned.Load()
	}
	return err
}

// end checks that [offset, offset+n) fits in the file's address space.
func (b *blob) end(offset uint64, n int) (uint64, error) {
	end, err := storage.End(offset, n)
	if err != nil || end > math.MaxInt64-uint64(b.off) {
		return 0, simrt.ErrOffsetOverflow
	}
	return end, nil
}

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error {
	if b.closed.Load() {
		return b.fail(simrt.ErrClosed, nil)
	}
	if len(p) == 0 {
		return nil
	}
	if _, err := b.end(offset, len(p)); err != nil {
		return err
	}
	n, err := b.f.ReadAt(p, b.off+int64(offset))
	switch {
	case n == len(p):
		return nil
	case err == nil || errors.Is(err, io.EOF):
		return simrt.ErrBlobInsufficientLength
	}
	return b.fail(simrt.ErrReadFailed, err)
}

// WriteAt implements simrt.Blob.WriteAt. A write of zero bytes does
// nothing, even past the end. After a failed sync it fails with that
// sync's error; a WriteSync write to a removed blob fails with
// ErrBlobMissing and writes nothing.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	syncing := opts&simrt.WriteSync != 0
	check := b.mutable
	if syncing {
		check = b.durable
	}
	if err := check(); err != nil {
		return err
	}
	n := storage.Len(bufs)
	if n == 0 {
		return nil
	}
	if _, err := b.end(offset, n); err != nil {
		return err
	}
	data := bufs[0]
	if len(data) != n {
		data = make([]byte, 0, n)
		for _, p := range bufs {
			data = append(data, p...)
		}
	}
	if _, err := b.f.WriteAt(data, b.off+int64(offset)); err != nil {
		return b.fail(simrt.ErrWriteFailed, err)
	}
	if syncing {
		return b.sync()
	}
	return nil
}

// Resize implements simrt.Blob.Resize. After a failed sync it fails with
// that sync's error.
func (b *blob) Resize(size uint64) error {
	if err := b.mutable(); err != nil {
		return err
	}
	if _, err := b.end(size, 0); err != nil {
		return err
	}
	if err := b.f.Truncate(b.off + int64(size)); err != nil {
		return b.fail(simrt.ErrBlobResizeFailed, err)
	}
	return nil
}

// Sync implements simrt.Blob.Sync with fdatasync (fsync off Linux). A
// failed sync poisons the handle (see the package documentation); a
// removed blob fails with ErrBlobMissing.
func (b *blob) Sync() error {
	if err := b.durable(); err != nil {
		return err
	}
	return b.sync()
}

// StartSync implements simrt.Blob.StartSync: the sync runs on its own
// goroutine and the handle completes when it is done. Close waits for it.
func (b *blob) StartSync() *simrt.Handle[struct{}] {
	if err := b.durable(); err != nil {
		return storage.Ready(struct{}{}, err)
	}
	h, done := storage.NewCompletion[struct{}]()
	b.syncs.Add(1)
	go func() {
		defer b.syncs.Done()
		done(struct{}{}, b.sync())
	}()
	return h
}

// Close implements simrt.Blob.Close. It waits for running StartSync calls,
// releases the open unless the blob was removed (and perhaps recreated)
// meanwhile, and closes the file.
func (b *blob) Close() error {
	if b.closed.Swap(true) {
		return b.fail(simrt.ErrClosed, nil)
	}
	b.s.mu.Lock()
	if b.s.mu.opens[b.k] == b {
		delete(b.s.mu.opens, b.k)
	}
	b.s.mu.Unlock()
	b.syncs.Wait()
	if err := b.f.Close(); err != nil {
		return b.fail(simrt.ErrIO, err)
	}
	return nil
}
