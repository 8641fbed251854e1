package simrt

import (
	"errors"
	"strconv"
)

// Storage conditions. Compare with errors.Is; most reach the caller wrapped
// in a *PartitionError or a *BlobError that names the partition and blob.
var (
	// ErrPartitionNameInvalid: a partition name is empty or has a character
	// outside [A-Za-z0-9_-].
	ErrPartitionNameInvalid = errors.New("partition name invalid, must only contain alphanumeric, dash ('-'), or underscore ('_') characters")
	// ErrPartitionCreationFailed: the partition could not be created.
	ErrPartitionCreationFailed = errors.New("partition creation failed")
	// ErrPartitionMissing: the partition does not exist.
	ErrPartitionMissing = errors.New("partition missing")
	// ErrPartitionCorrupt: the partition holds something that is not a blob.
	ErrPartitionCorrupt = errors.New("partition corrupt")
	// ErrBlobOpenFailed: the blob could not be opened or created.
	ErrBlobOpenFailed = errors.New("blob open failed")
	// ErrBlobMissing: the blob does not exist, or was removed while this
	// handle was open.
	ErrBlobMissing = errors.New("blob missing")
	// ErrBlobResizeFailed: the blob could not be resized.
	ErrBlobResizeFailed = errors.New("blob resize failed")
	// ErrBlobSyncFailed: the blob could not be made durable.
	ErrBlobSyncFailed = errors.New("blob sync failed")
	// ErrBlobInsufficientLength: a read reaches past the end of the blob.
	ErrBlobInsufficientLength = errors.New("blob insufficient length")
	// ErrBlobCorrupt: the blob's header is damaged; the *BlobError's Cause
	// says how.
	ErrBlobCorrupt = errors.New("blob corrupt")
	// ErrBlobVersionMismatch: the blob's version lies outside the range
	// asked for. Returned as a *VersionMismatchError.
	ErrBlobVersionMismatch = errors.New("blob version mismatch")
	// ErrBlobAlreadyOpen: the blob is open through another handle that has
	// been neither closed nor removed.
	ErrBlobAlreadyOpen = errors.New("blob already open")
	// ErrInvalidChecksum: a checksum is wrong or missing.
	ErrInvalidChecksum = errors.New("invalid or missing checksum")
	// ErrOffsetOverflow: offset plus length does not fit in a uint64, or
	// passes the largest blob the store supports (memory.MaxSize in memory,
	// the file size limit on disk). The error that wraps it says which.
	ErrOffsetOverflow = errors.New("offset overflow")
	// ErrIO: an I/O error, real or injected. The error that wraps it says
	// which ("io error: injected storage fault").
	ErrIO = errors.New("io error")
)

// PartitionError records a failed operation on a partition. Err is the
// condition (ErrPartitionMissing, ErrPartitionNameInvalid, ...); Cause is
// the underlying I/O error, if any.
type PartitionError struct {
	Partition string
	Err       error
	Cause     error
}

// Error formats the error as "partition missing: p".
func (e *PartitionError) Error() string {
	s := e.Err.Error() + ": " + e.Partition
	if e.Cause != nil {
		s += " error: " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the condition and the cause, for errors.Is and errors.As.
func (e *PartitionError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// BlobError records a failed operation on one blob. Name is the lowercase
// hex of the blob's name. Err is the condition (ErrBlobMissing,
// ErrBlobAlreadyOpen, ErrBlobCorrupt, ...); Cause is the underlying error:
// an I/O error, or for ErrBlobCorrupt the reason the header was rejected.
type BlobError struct {
	Partition string
	Name      string
	Err       error
	Cause     error
}

// Error formats the error with the name in hex: "blob missing: p/6162",
// "blob open failed: p/6162 error: ...", "blob corrupt: p/6162 reason: ...".
func (e *BlobError) Error() string {
	s := e.Err.Error() + ": " + e.Partition + "/" + e.Name
	if e.Cause != nil {
		if e.Err == ErrBlobCorrupt {
			s += " reason: "
		} else {
			s += " error: "
		}
		s += e.Cause.Error()
	}
	return s
}

// Unwrap returns the condition and the cause, for errors.Is and errors.As.
func (e *BlobError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// VersionMismatchError reports a blob whose version lies outside the range
// asked for. It matches ErrBlobVersionMismatch.
type VersionMismatchError struct {
	Expected VersionRange
	Found    uint16
}

// Error formats the error as "blob version mismatch:
// expected one of 2..=3, found 1".
func (e *VersionMismatchError) Error() string {
	return "blob version mismatch: expected one of " + e.Expected.String() +
		", found " + strconv.Itoa(int(e.Found))
}

// Unwrap makes errors.Is(err, ErrBlobVersionMismatch) true.
func (e *VersionMismatchError) Unwrap() error { return ErrBlobVersionMismatch }
