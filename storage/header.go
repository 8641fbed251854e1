package storage

import (
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"strings"

	"github.com/simrt/simrt"
)

// HeaderSize is the size of the header of every new blob, and the offset of
// its first logical byte.
const HeaderSize = 4096

const (
	preludeSize  = 8                  // magic, runtime version, blob version
	checksumEnd  = preludeSize + 4    // prelude and its CRC-32C
	legacyOffset = preludeSize        // data offset of the legacy layout
	currentLayer = 1                  // runtime version of the current layout
	legacyLayer  = 0                  // runtime version of the legacy layout
	magicLen     = 4                  // bytes of magic
	canonicalLen = magicLen + 2       // magic and runtime version: fixed at creation
	maxHealLen   = uint64(HeaderSize) // longer files never heal: they may hold data
)

var (
	magicCurrent = [magicLen]byte{'C', 'W', 'I', 'K'}
	magicLegacy  = [magicLen]byte{'C', 'W', 'I', 'C'}
	castagnoli   = crc32.MakeTable(crc32.Castagnoli)
)

// NewHeader returns the HeaderSize bytes that start a new blob of the given
// version. A writer truncates the file to zero, writes them, then syncs.
func NewHeader(version uint16) []byte {
	h := make([]byte, HeaderSize)
	copy(h, magicCurrent[:])
	binary.BigEndian.PutUint16(h[4:], currentLayer)
	binary.BigEndian.PutUint16(h[6:], version)
	binary.BigEndian.PutUint32(h[preludeSize:], crc32.Checksum(h[:preludeSize], castagnoli))
	return h
}

// Header is a resolved blob header.
type Header struct {
	// Fresh reports that the blob holds no header yet: it is empty, or
	// holds exactly what an interrupted creation leaves (a canonical
	// prefix of a new header followed only by zeros, at most HeaderSize
	// bytes). Any other content, however short, is an error. The
	// caller recreates it with NewHeader(versions.Max); its logical size is
	// then zero. Version, DataOffset and Size describe the recreated blob.
	Fresh bool
	// Version is the blob version.
	Version uint16
	// DataOffset is the physical offset of logical byte 0: HeaderSize, or
	// 8 for a legacy blob.
	DataOffset uint64
	// Size is the logical size: the physical size minus DataOffset.
	Size uint64
}

// Resolve reads the header of a blob whose physical size is rawLen and whose
// first bytes are head (at least min(rawLen, HeaderSize) of them; more are
// ignored). It fails with a *HeaderError when the header is damaged, or a
// *simrt.VersionMismatchError when it is valid but its version lies outside
// versions. Resolve never panics, whatever head holds.
func Resolve(head []byte, rawLen uint64, versions simrt.VersionRange) (Header, error) {
	if uint64(len(head)) > rawLen {
		head = head[:rawLen]
	}
	if len(head) > HeaderSize {
		head = head[:HeaderSize]
	}
	fresh := Header{Fresh: true, Version: versions.Max, DataOffset: HeaderSize}
	if rawLen == 0 {
		return fresh, nil
	}
	if rawLen < preludeSize {
		// Shorter than a prelude: only what a torn creation leaves (a
		// prefix of "CWIK\x00\x01", then zeros) is ours to recreate.
		// Anything else may be someone else's file, never overwritten.
		if tornCreation(head, rawLen) {
			return fresh, nil
		}
		return Header{}, &HeaderError{Kind: Truncated, Required: preludeSize, RawLen: rawLen}
	}
	h, err := parse(head, rawLen)
	if err != nil {
		if err.heals() && rawLen <= maxHealLen && tornCreation(head, rawLen) {
			return fresh, nil
		}
		return Header{}, err
	}
	if !versions.Contains(h.Version) {
		return Header{}, &simrt.VersionMismatchError{Expected: versions, Found: h.Version}
	}
	return h, nil
}

// parse checks the header in the order of the reference: magic, runtime
// version, length, checksum, length again, padding.
func parse(head []byte, rawLen uint64) (Header, *HeaderError) {
	if len(head) < preludeSize {
		return Header{}, &HeaderError{Kind: Truncated, Required: preludeSize, RawLen: uint64(len(head))}
	}
	var magic [magicLen]byte
	copy(magic[:], head)
	layer := binary.BigEndian.Uint16(head[4:])
	version := binary.BigEndian.Uint16(head[6:])
	switch magic {
	case magicLegacy:
		if layer != legacyLayer {
			return Header{}, &HeaderError{Kind: UnsupportedRuntimeVersion, Expected: legacyLayer, Found: layer}
		}
		return Header{Version: version, DataOffset: legacyOffset, Size: rawLen - legacyOffset}, nil
	case magicCurrent:
		if layer != currentLayer {
			return Header{}, &HeaderError{Kind: UnsupportedRuntimeVersion, Expected: currentLayer, Found: layer}
		}
	default:
		return Header{}, &HeaderError{Kind: InvalidMagic, Magic: magic}
	}
	if rawLen < checksumEnd || len(head) < checksumEnd {
		return Header{}, &HeaderError{Kind: Truncated, Required: checksumEnd, RawLen: rawLen}
	}
	if binary.BigEndian.Uint32(head[preludeSize:]) != crc32.Checksum(head[:preludeSize], castagnoli) {
		return Header{}, &HeaderError{Kind: InvalidChecksum}
	}
	if rawLen < HeaderSize || len(head) < HeaderSize {
		return Header{}, &HeaderError{Kind: Truncated, Required: HeaderSize, RawLen: rawLen}
	}
	if !allZero(head[checksumEnd:HeaderSize]) {
		return Header{}, &HeaderError{Kind: InvalidPadding}
	}
	return Header{Version: version, DataOffset: HeaderSize, Size: rawLen - HeaderSize}, nil
}

// tornCreation reports whether head is what an interrupted creation of a
// current-layout header can leave behind: a canonical prefix of the creation
// region followed only by zeros. The blob version bytes are free (any
// version may have been stamped); the checksum bytes written must match the
// prelude actually on file.
func tornCreation(head []byte, rawLen uint64) bool {
	if uint64(len(head)) < rawLen {
		return false // the caller did not give us every byte: be safe
	}
	lim := min(len(head), checksumEnd)
	if !allZero(head[lim:]) {
		return false
	}
	written := 0
	for i := lim - 1; i >= 0; i-- {
		if head[i] != 0 {
			written = i + 1
			break
		}
	}
	var canonical [canonicalLen]byte
	copy(canonical[:], magicCurrent[:])
	binary.BigEndian.PutUint16(canonical[magicLen:], currentLayer)
	n := min(written, canonicalLen)
	if string(head[:n]) != string(canonical[:n]) {
		return false
	}
	if written <= preludeSize {
		return true
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc32.Checksum(head[:preludeSize], castagnoli))
	return string(head[preludeSize:written]) == string(sum[:written-preludeSize])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// HeaderErrorKind says what is wrong with a header.
type HeaderErrorKind uint8

//go:generate stringer -type=HeaderErrorKind -output=headererrorkind_string.go

const (
	// InvalidMagic: the first four bytes name no known layout.
	InvalidMagic HeaderErrorKind = iota + 1
	// UnsupportedRuntimeVersion: the layout's runtime version is wrong.
	UnsupportedRuntimeVersion
	// InvalidChecksum: the CRC-32C of the prelude does not match.
	InvalidChecksum
	// InvalidPadding: the padding after the checksum is not all zeros.
	InvalidPadding
	// Truncated: the blob is shorter than its header.
	Truncated
)

// HeaderError is why a header was rejected. Storages return it as the Cause
// of a *simrt.BlobError matching simrt.ErrBlobCorrupt. An InvalidChecksum
// error also matches simrt.ErrInvalidChecksum.
type HeaderError struct {
	Kind HeaderErrorKind
	// Magic is the magic found (InvalidMagic).
	Magic [4]byte
	// Expected and Found are runtime versions (UnsupportedRuntimeVersion).
	Expected, Found uint16
	// Required and RawLen are lengths (Truncated).
	Required, RawLen uint64
}

// Error gives the reason the header was refused.
func (e *HeaderError) Error() string {
	switch e.Kind {
	case InvalidMagic:
		var b strings.Builder
		b.WriteString("invalid magic: found [")
		for i, c := range e.Magic {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(int(c)))
		}
		b.WriteString("]")
		return b.String()
	case UnsupportedRuntimeVersion:
		return "unsupported runtime version: expected " + strconv.Itoa(int(e.Expected)) +
			", found " + strconv.Itoa(int(e.Found))
	case InvalidChecksum:
		return "invalid header checksum"
	case InvalidPadding:
		return "invalid header padding"
	case Truncated:
		return "truncated header: required length " + strconv.FormatUint(e.Required, 10) +
			", raw length " + strconv.FormatUint(e.RawLen, 10)
	}
	return "invalid header"
}

// Is makes an InvalidChecksum error match simrt.ErrInvalidChecksum.
func (e *HeaderError) Is(target error) bool {
	return e.Kind == InvalidChecksum && target == simrt.ErrInvalidChecksum
}

// heals reports whether a torn creation can explain the error. Bad padding
// cannot: creation writes the padding after the checksum.
func (e *HeaderError) heals() bool {
	switch e.Kind {
	case InvalidMagic, UnsupportedRuntimeVersion, InvalidChecksum, Truncated:
		return true
	}
	return false
}
