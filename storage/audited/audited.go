// Package audited feeds every storage operation to the runtime's auditor,
// so that two runs of one seed can be shown to do the same storage work.
//
// Each operation records one event before it is delegated, so failed
// attempts (an open of a blob that is already open, an injected fault) are
// audited as well as successes. Integers are 8-byte big-endian (versions
// 2-byte), so field boundaries are unambiguous. The labels are the
// constants of package telemetry/audit (audit.Open, audit.Remove, ...):
//
//	open        partition, name, min version, max version
//	remove      partition, 1 || name      (one blob)
//	remove      partition, 0              (whole partition)
//	scan        partition
//	read_at     partition, name, offset, length, 0
//	write_at    partition, name, offset, data (all buffers as one field), options
//	resize      partition, name, size
//	sync        partition, name
//	start_sync  partition, name
//	close       partition, name
//
// The smallest use, with the simulator's *deterministic.Auditor or any
// Recorder:
//
//	s := audited.New(memory.New(), auditor)
package audited

import (
	"encoding/binary"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/audit"
)

// Recorder receives audit events: a label and its fields. The simulator's
// auditor is one. Event must not keep fields, or the bytes they hold, after
// it returns: a blob records its events from buffers it reuses.
type Recorder interface {
	Event(label audit.Label, fields ...[]byte)
}

var _ simrt.Storage = (*Storage)(nil)

// Storage records every operation on the storage it wraps. Create it with
// New.
type Storage struct {
	inner simrt.Storage
	rec   Recorder
}

// New wraps inner, recording into rec.
func New(inner simrt.Storage, rec Recorder) *Storage { return &Storage{inner: inner, rec: rec} }

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }

// Open implements simrt.Storage.Open. It is audited as an open of versions
// 0..=0.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, _, err := s.OpenVersioned(partition, name, simrt.VersionRange{})
	return b, size, err
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	s.rec.Event(audit.Open, []byte(partition), name, u16(versions.Min), u16(versions.Max))
	b, size, v, err := s.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, 0, 0, err
	}
	return &blob{inner: b, rec: s.rec, partition: []byte(partition), name: append([]byte(nil), name...)}, size, v, nil
}

// Remove implements simrt.Storage.Remove.
func (s *Storage) Remove(partition string, name []byte) error {
	s.rec.Event(audit.Remove, []byte(partition), append([]byte{1}, name...))
	return s.inner.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *Storage) RemovePartition(partition string) error {
	s.rec.Event(audit.Remove, []byte(partition), []byte{0})
	return s.inner.RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan.
func (s *Storage) Scan(partition string) ([][]byte, error) {
	s.rec.Event(audit.Scan, []byte(partition))
	return s.inner.Scan(partition)
}

var _ simrt.Blob = (*blob)(nil)

type blob struct {
	inner           simrt.Blob
	rec             Recorder
	partition, name []byte
	// ev holds the fields of the event being recorded, so that recording
	// allocates nothing: a blob is used by one task at a time, and a
	// Recorder keeps no field after Event returns.
	ev struct {
		fields [5][]byte
		a, b   [8]byte
		opt    [1]byte
	}
}

// event records label with the blob's partition and name, then fields.
func (b *blob) event(label audit.Label, fields ...[]byte) {
	e := &b.ev
	f := append(append(e.fields[:0], b.partition, b.name), fields...)
	b.rec.Event(label, f...)
	e.fields = [5][]byte{} // keep no caller's data alive
}

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error {
	e := &b.ev
	binary.BigEndian.PutUint64(e.a[:], offset)
	binary.BigEndian.PutUint64(e.b[:], uint64(len(p)))
	e.opt[0] = 0
	b.event(audit.ReadAt, e.a[:], e.b[:], e.opt[:])
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt. The buffers are audited as one
// field: how the data is chunked does not change the audit.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	var data []byte
	switch len(bufs) {
	case 0:
	case 1:
		data = bufs[0]
	default:
		for _, p := range bufs {
			data = append(data, p...)
		}
	}
	e := &b.ev
	binary.BigEndian.PutUint64(e.a[:], offset)
	e.opt[0] = byte(opts)
	b.event(audit.WriteAt, e.a[:], data, e.opt[:])
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *blob) Resize(size uint64) error {
	binary.BigEndian.PutUint64(b.ev.a[:], size)
	b.event(audit.Resize, b.ev.a[:])
	return b.inner.Resize(size)
}

// Sync implements simrt.Blob.Sync.
func (b *blob) Sync() error {
	b.event(audit.Sync)
	return b.inner.Sync()
}

// StartSync implements simrt.Blob.StartSync.
func (b *blob) StartSync() *simrt.Handle[struct{}] {
	b.event(audit.StartSync)
	return b.inner.StartSync()
}

// Close implements simrt.Blob.Close.
func (b *blob) Close() error {
	b.event(audit.Close)
	return b.inner.Close()
}
