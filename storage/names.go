package storage

import (
	"encoding/hex"
	"errors"
	"math"

	"github.com/simrt/simrt"
)

// errEmptyName is the cause of the error an empty blob name gets.
var errEmptyName = errors.New("empty blob name")

// CheckPartition returns nil if name is a valid partition name (non-empty,
// only [A-Za-z0-9_-]), and a *simrt.PartitionError matching
// simrt.ErrPartitionNameInvalid otherwise.
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
	return nil
}

// CheckOpen validates the partition and blob names of an open: a bad
// partition gives ErrPartitionNameInvalid, an empty blob name a *BlobError
// matching ErrBlobOpenFailed.
func CheckOpen(partition string, name []byte) error {
	if err := CheckPartition(partition); err != nil {
		return err
	}
	if len(name) == 0 {
		return &simrt.BlobError{Partition: partition, Name: "", Err: simrt.ErrBlobOpenFailed, Cause: errEmptyName}
	}
	return nil
}

// HexName is how blob names appear in errors and on disk: lowercase hex.
func HexName(name []byte) string { return hex.EncodeToString(name) }

// ParseHexName decodes a name written by HexName. It reports false unless s
// is non-empty, canonical lowercase hex.
func ParseHexName(s string) ([]byte, bool) {
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
