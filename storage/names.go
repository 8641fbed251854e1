package storage

import (
	"encoding/hex"
	"errors"
	"math"
	"strconv"

	"github.com/simrt/simrt"
)

// Name limits shared by every storage. A blob's file name on disk is the
// lowercase hex of its name, two characters a byte, and file systems cap a
// name at 255 bytes: hence 127 bytes of blob name. A partition is a
// directory named exactly like the partition. Enforcing the limits in every
// storage, the simulator's included, means a name that works in a
// simulation works in production.
const (
	// MaxPartitionLen is the longest partition name, in bytes.
	MaxPartitionLen = 255
	// MaxBlobNameLen is the longest blob name, in bytes.
	MaxBlobNameLen = 127
)

// ErrNameTooLong is the cause of the error a partition name longer than
// MaxPartitionLen or a blob name longer than MaxBlobNameLen gets: inside a
// *simrt.PartitionError matching simrt.ErrPartitionNameInvalid, or a
// *simrt.BlobError matching simrt.ErrBlobOpenFailed (Open) or
// simrt.ErrBlobMissing (Remove: such a blob cannot exist).
var ErrNameTooLong = errors.New("name too long")

// ErrVersionRange is the cause of the *simrt.BlobError matching
// simrt.ErrBlobOpenFailed that an open with an inverted VersionRange
// (Min > Max) gets.
var ErrVersionRange = errors.New("inverted version range")

// errEmptyName is the cause of the error an empty blob name gets.
var errEmptyName = errors.New("empty blob name")

// nameTooLong wraps ErrNameTooLong with the limit that was passed.
type nameTooLong struct {
	what  string
	n     int
	limit int
}

func (e *nameTooLong) Error() string {
	return e.what + " name of " + strconv.Itoa(e.n) + " bytes is longer than " + strconv.Itoa(e.limit)
}

func (e *nameTooLong) Unwrap() error { return ErrNameTooLong }

// versionRange wraps ErrVersionRange with the range asked for.
type versionRange struct{ r simrt.VersionRange }

func (e *versionRange) Error() string { return "inverted version range " + e.r.String() }

func (e *versionRange) Unwrap() error { return ErrVersionRange }

// CheckPartition returns nil if name is a valid partition name (1 to
// MaxPartitionLen bytes of [A-Za-z0-9_-]), and a *simrt.PartitionError
// matching simrt.ErrPartitionNameInvalid otherwise (with ErrNameTooLong as
// its cause when the name is too long).
func CheckPartition(name string) error {
	if name == "" {
		return &simrt.PartitionError{Partition: name, Err: simrt.ErrPartitionNameInvalid}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return &simrt.PartitionError{Partition: name, Err: simrt.ErrPartitionNameInvalid}
		}
	}
	if len(name) > MaxPartitionLen {
		return &simrt.PartitionError{Partition: name, Err: simrt.ErrPartitionNameInvalid,
			Cause: &nameTooLong{what: "partition", n: len(name), limit: MaxPartitionLen}}
	}
	return nil
}

// CheckOpen validates the partition and blob names of an open: a bad
// partition gives ErrPartitionNameInvalid, an empty blob name, one longer
// than MaxBlobNameLen, or an inverted version range a *BlobError matching
// ErrBlobOpenFailed.
func CheckOpen(partition string, name []byte, versions simrt.VersionRange) error {
	if err := CheckPartition(partition); err != nil {
		return err
	}
	var cause error
	switch {
	case len(name) == 0:
		cause = errEmptyName
	case len(name) > MaxBlobNameLen:
		cause = &nameTooLong{what: "blob", n: len(name), limit: MaxBlobNameLen}
	case versions.Min > versions.Max:
		cause = &versionRange{versions}
	default:
		return nil
	}
	return &simrt.BlobError{Partition: partition, Name: HexName(name), Err: simrt.ErrBlobOpenFailed, Cause: cause}
}

// CheckRemove validates the partition and blob names of a removal: a bad
// partition gives ErrPartitionNameInvalid, and a blob name longer than
// MaxBlobNameLen a *BlobError matching ErrBlobMissing (no such blob can
// exist) with ErrNameTooLong as its cause. An empty name is left to the
// storage, which reports the blob missing.
func CheckRemove(partition string, name []byte) error {
	if err := CheckPartition(partition); err != nil {
		return err
	}
	if len(name) > MaxBlobNameLen {
		return &simrt.BlobError{Partition: partition, Name: HexName(name), Err: simrt.ErrBlobMissing,
			Cause: &nameTooLong{what: "blob", n: len(name), limit: MaxBlobNameLen}}
	}
	return nil
}

// HexName is how blob names appear in errors and on disk: lowercase hex.
func HexName(name []byte) string { return hex.EncodeToString(name) }

// ParseHexName decodes a name written by HexName. It reports false unless s
// is non-empty, canonical lowercase hex of at most MaxBlobNameLen bytes.
func ParseHexName(s string) ([]byte, bool) {
	if len(s) > 2*MaxBlobNameLen {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	if err != nil || len(b) == 0 || hex.EncodeToString(b) != s {
		return nil, false
	}
	return b, true
}

// End returns offset+n, or simrt.ErrOffsetOverflow if it does not fit in a
// uint64 (or in an int on this platform, so that it can index memory).
func End(offset uint64, n int) (uint64, error) {
	if n < 0 || offset > math.MaxInt64 || uint64(n) > math.MaxInt64-offset {
		return 0, simrt.ErrOffsetOverflow
	}
	return offset + uint64(n), nil
}

// Len is the total length of bufs.
func Len(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
}
