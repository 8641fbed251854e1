package memory

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"slices"
)

// Snapshot is the durable state of a Storage, taken at a crash. It is
// immutable: Restore copies it, so one Snapshot may be restored many times.
type Snapshot struct {
	parts map[string]map[string][]byte
}

// Snapshot moves the durable state out of s and retires every handle: from
// now on no handle of s can make anything durable, and s is empty. Call it
// once the crash has been resolved (see faulty.Storage.Crash).
func (s *Storage) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := &Snapshot{parts: make(map[string]map[string][]byte, len(s.parts))}
	for p, part := range s.parts {
		files := make(map[string][]byte, len(part))
		for n, f := range part {
			files[n] = f.data
		}
		snap.parts[p] = files
	}
	s.parts = map[string]map[string]*file{}
	return snap
}

// Restore returns a store whose durable state is a copy of snap, with no
// blob open. A nil snap gives an empty store.
func Restore(snap *Snapshot) *Storage {
	s := New()
	if snap == nil {
		return s
	}
	for p, files := range snap.parts {
		part := make(map[string]*file, len(files))
		for n, data := range files {
			part[n] = &file{data: slices.Clone(data)}
		}
		s.parts[p] = part
	}
	return s
}

// Digest is a CRC-32C digest of durable storage contents.
type Digest [4]byte

// String returns the digest as 8 lowercase hex characters.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// auditDomain starts every storage audit, so that it never equals the digest
// of some other sequence of fields.
const auditDomain = "commonware-runtime-storage-audit-v1"

// Audit returns a digest of the durable contents of every blob, headers
// included, in partition and name order. Each field is hashed with its
// length, so that partition "a" with blob "bc" differs from "ab" with "c".
// Unsynced writes do not change it.
func (s *Storage) Audit() Digest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var crc uint32
	field := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		crc = crc32.Update(crc, castagnoli, n[:])
		crc = crc32.Update(crc, castagnoli, b)
	}
	field([]byte(auditDomain))
	for _, p := range sortedKeys(s.parts) {
		part := s.parts[p]
		field([]byte("partition"))
		field([]byte(p))
		for _, n := range sortedKeys(part) {
			field([]byte("blob"))
			field([]byte(n))
			field([]byte("content"))
			field(part[n].data)
		}
	}
	var d Digest
	binary.BigEndian.PutUint32(d[:], crc)
	return d
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
