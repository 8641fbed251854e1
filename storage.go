package simrt

// Storage holds blobs grouped in partitions. Partition names match
// [A-Za-z0-9_-]+; blob names are arbitrary bytes.
type Storage interface {
	// Open opens or creates a blob with the default version (0) and returns
	// it with its logical size. An open is exclusive until the handle is
	// closed or the blob removed: a second open fails with ErrBlobAlreadyOpen.
	Open(partition string, name []byte) (Blob, uint64, error)
	// OpenVersioned is Open for blobs whose version must lie in versions; a
	// new blob is stamped with versions.Max.
	OpenVersioned(partition string, name []byte, versions VersionRange) (Blob, uint64, uint16, error)
	// Remove removes one blob, or the whole partition when name is nil.
	Remove(partition string, name []byte) error
	// Scan lists the blob names of a partition.
	Scan(partition string) ([][]byte, error)
}

// VersionRange is an inclusive range of blob versions.
type VersionRange struct{ Min, Max uint16 }

// WriteOptions changes how WriteAt persists data.
type WriteOptions uint8

const (
	// WriteSync makes the written bytes durable before WriteAt returns.
	WriteSync WriteOptions = 1 << iota
	// WriteDontCache hints that the data need not stay in the page cache.
	WriteDontCache
)

// Blob is an open blob. A Blob is used by one task at a time.
type Blob interface {
	// ReadAt fills p from offset, or fails if the blob is shorter.
	ReadAt(p []byte, offset uint64) error
	// WriteAt writes bufs, in order, at offset, extending the blob with
	// zeros if needed.
	WriteAt(offset uint64, opts WriteOptions, bufs ...[]byte) error
	// Resize truncates or extends (with zeros) the blob to size bytes.
	Resize(size uint64) error
	// Sync makes every earlier write and resize durable.
	Sync() error
	// StartSync starts a sync and returns a handle that completes when it is
	// durable.
	StartSync() *Handle[struct{}]
	// Close releases the handle and its exclusive open. Unsynced data may be
	// lost at the next crash.
	Close() error
}
