package simrt

import "strconv"

// DefaultBlobVersion is the blob version Open asks for and stamps on new
// blobs.
const DefaultBlobVersion uint16 = 0

// Storage holds blobs grouped in partitions. Partition names match
// [A-Za-z0-9_-]+ and are at most 255 bytes long (anything else fails with
// ErrPartitionNameInvalid before any other work); blob names are arbitrary
// non-empty bytes, at most 127 of them, shown as lowercase hex in errors
// and on disk (an empty or longer name fails to open with
// ErrBlobOpenFailed). The limits are the same on every implementation (see
// package storage), so a name that works in a simulation works on disk.
//
// Every method is safe to call from any task of the runtime that owns the
// storage. In the simulator no storage operation ever parks.
type Storage interface {
	// Open opens or creates a blob of version DefaultBlobVersion and returns
	// it with its logical size. It is OpenVersioned with the range
	// {DefaultBlobVersion, DefaultBlobVersion}.
	Open(partition string, name []byte) (Blob, uint64, error)
	// OpenVersioned opens or creates a blob whose version lies in versions
	// and returns it with its logical size and version. A new blob is
	// durably created, stamped with versions.Max, before OpenVersioned
	// returns. An existing blob outside the range fails with a
	// *VersionMismatchError; a corrupt header fails with a *BlobError
	// matching ErrBlobCorrupt.
	//
	// An open is exclusive: until the handle is closed or the blob removed,
	// a second open of the same blob fails with a *BlobError matching
	// ErrBlobAlreadyOpen. An inverted range (Min > Max) fails with
	// ErrBlobOpenFailed.
	OpenVersioned(partition string, name []byte, versions VersionRange) (Blob, uint64, uint16, error)
	// Remove durably removes one blob and frees its name: a later open
	// creates a new, empty blob, while a handle still open on the removed
	// blob keeps its old contents and never touches the new one. Like an
	// *os.File on a removed path, that handle still reads, writes and
	// resizes its own contents, but its Sync, StartSync and WriteSync
	// writes fail with ErrBlobMissing: nothing it holds can be found again.
	// It fails with ErrPartitionMissing or ErrBlobMissing.
	Remove(partition string, name []byte) error
	// RemovePartition durably and atomically removes a partition and every
	// blob in it: after a crash the partition is whole or gone, never half.
	// It has the same effect on open handles as Remove. It fails with
	// ErrPartitionMissing.
	RemovePartition(partition string) error
	// Scan returns the names of the blobs of a partition, sorted. A
	// partition that exists but is empty gives an empty list; a missing one
	// fails with ErrPartitionMissing. Entries that are not blobs (a stray
	// file in a partition directory) are skipped, never an error.
	Scan(partition string) ([][]byte, error)
}

// VersionRange is an inclusive range of blob versions.
type VersionRange struct{ Min, Max uint16 }

// Contains reports whether v lies in the range.
func (r VersionRange) Contains(v uint16) bool { return r.Min <= v && v <= r.Max }

// String formats the range as an inclusive Rust-style range: "2..=3".
func (r VersionRange) String() string {
	return strconv.Itoa(int(r.Min)) + "..=" + strconv.Itoa(int(r.Max))
}

// WriteOptions changes how WriteAt persists data. Combine options with |.
type WriteOptions uint8

const (
	// WriteSync makes the written bytes durable before WriteAt returns. It
	// is not a barrier: earlier unsynced writes and resizes stay unsynced.
	WriteSync WriteOptions = 1 << iota
	// WriteDontCache hints that the data need not stay in the page cache.
	// It never changes what WriteAt does.
	WriteDontCache
)

// Blob is one open blob. Offsets are logical: the header every blob starts
// with is invisible through a Blob. A Blob is used by one task at a time;
// share the pointer, not copies of it.
//
// Once Close has been called every method fails with a *BlobError matching
// ErrClosed (StartSync through its handle).
type Blob interface {
	// ReadAt fills p with the bytes at offset. It reads exactly len(p)
	// bytes or fails (ErrBlobInsufficientLength past the end). An empty p
	// always succeeds.
	ReadAt(p []byte, offset uint64) error
	// WriteAt writes the concatenation of bufs at offset, extending the
	// blob with zeros over any gap. With WriteSync the written bytes are
	// durable on return. A write of zero bytes does nothing, with or
	// without WriteSync, at any offset (as os.File.WriteAt).
	// A write whose end overflows uint64, or passes the largest blob the
	// store supports, fails with ErrOffsetOverflow (wrapped in an error
	// that gives the end and the limit).
	// WriteAt does not retain bufs.
	WriteAt(offset uint64, opts WriteOptions, bufs ...[]byte) error
	// Resize truncates the blob, or extends it with zeros, to size bytes.
	Resize(size uint64) error
	// Sync makes every earlier write and resize durable. A failed sync
	// (Sync, StartSync or a WriteSync write) poisons the handle: the
	// kernel may have dropped what it could not write, so every later
	// WriteAt, Resize, Sync and StartSync returns that error until the blob
	// is closed and reopened. ReadAt still works.
	Sync() error
	// StartSync starts a sync and returns a handle that completes when the
	// sync has finished, with the same durability and the same error as
	// Sync. Abandoning the handle does not harm the blob.
	StartSync() *Handle[struct{}]
	// Close releases the handle and its exclusive open. Close is not a
	// crash: unsynced writes and resizes stay, as in the operating
	// system's page cache, and the next open sees them (on every runtime;
	// storagetest CloseKeepsUnsyncedWrites), though they may be lost at
	// the next crash or power loss until a Sync makes them durable.
	// Closing a handle whose blob was removed never affects a newer blob
	// of the same name.
	Close() error
}
