// Package metered counts storage operations in Prometheus metrics, under
// the runtime_ names of the reference:
//
//	runtime_open_blobs                 gauge: handles opened and not yet closed
//	runtime_storage_reads_total        counter: ReadAt calls
//	runtime_storage_read_bytes_total   counter: bytes asked of ReadAt
//	runtime_storage_writes_total       counter: WriteAt calls
//	runtime_storage_write_bytes_total  counter: bytes given to WriteAt
//	runtime_storage_syncs_total        counter: Sync, StartSync and WriteSync writes
//	runtime_storage_resizes_total      counter: Resize calls
//
// Calls are counted before they are delegated, so failures count too; only
// a successful open raises runtime_open_blobs, and the first Close of each
// handle lowers it, whatever Close returns.
//
//	s := metered.New(memory.New(), prometheus.NewRegistry())
package metered

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
)

type metrics struct {
	openBlobs  prometheus.Gauge
	reads      prometheus.Counter
	readBytes  prometheus.Counter
	writes     prometheus.Counter
	writeBytes prometheus.Counter
	syncs      prometheus.Counter
	resizes    prometheus.Counter
}

var _ simrt.Storage = (*Storage)(nil)

// Storage counts the operations on the storage it wraps. Create it with
// New.
type Storage struct {
	inner simrt.Storage
	m     *metrics
}

// New wraps inner and registers its metrics with reg. If reg already holds
// metrics of the same names (another metered storage registered them), the
// existing ones are shared. New panics if reg refuses them for any other
// reason.
func New(inner simrt.Storage, reg prometheus.Registerer) *Storage {
	counter := func(name, help string) prometheus.Counter {
		return register(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help}))
	}
	m := &metrics{
		openBlobs:  register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "runtime_open_blobs", Help: "Number of open blobs."})),
		reads:      counter("runtime_storage_reads_total", "Total number of disk reads."),
		readBytes:  counter("runtime_storage_read_bytes_total", "Total amount of data read from disk."),
		writes:     counter("runtime_storage_writes_total", "Total number of disk writes."),
		writeBytes: counter("runtime_storage_write_bytes_total", "Total amount of data written to disk."),
		syncs:      counter("runtime_storage_syncs_total", "Total number of disk syncs."),
		resizes:    counter("runtime_storage_resizes_total", "Total number of disk resizes."),
	}
	return &Storage{inner: inner, m: m}
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("metered.New: " + err.Error())
	}
	return c
}

// Open implements simrt.Storage.Open.
func (s *Storage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, size, err := s.inner.Open(partition, name)
	if err != nil {
		return nil, 0, err
	}
	s.m.openBlobs.Inc()
	return &blob{inner: b, m: s.m}, size, nil
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (s *Storage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	b, size, v, err := s.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, 0, 0, err
	}
	s.m.openBlobs.Inc()
	return &blob{inner: b, m: s.m}, size, v, nil
}

// Remove implements simrt.Storage.Remove.
func (s *Storage) Remove(partition string, name []byte) error { return s.inner.Remove(partition, name) }

// RemovePartition implements simrt.Storage.RemovePartition.
func (s *Storage) RemovePartition(partition string) error { return s.inner.RemovePartition(partition) }

// Scan implements simrt.Storage.Scan.
func (s *Storage) Scan(partition string) ([][]byte, error) { return s.inner.Scan(partition) }

var _ simrt.Blob = (*blob)(nil)

type blob struct {
	inner  simrt.Blob
	m      *metrics
	closed bool
}

// ReadAt implements simrt.Blob.ReadAt.
func (b *blob) ReadAt(p []byte, offset uint64) error {
	b.m.reads.Inc()
	b.m.readBytes.Add(float64(len(p)))
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt.
func (b *blob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	n := 0
	for _, p := range bufs {
		n += len(p)
	}
	b.m.writes.Inc()
	b.m.writeBytes.Add(float64(n))
	if opts&simrt.WriteSync != 0 {
		b.m.syncs.Inc()
	}
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *blob) Resize(size uint64) error {
	b.m.resizes.Inc()
	return b.inner.Resize(size)
}

// Sync implements simrt.Blob.Sync.
func (b *blob) Sync() error {
	b.m.syncs.Inc()
	return b.inner.Sync()
}

// StartSync implements simrt.Blob.StartSync.
func (b *blob) StartSync() *simrt.Handle[struct{}] {
	b.m.syncs.Inc()
	return b.inner.StartSync()
}

// Close implements simrt.Blob.Close.
func (b *blob) Close() error {
	if !b.closed {
		b.closed = true
		b.m.openBlobs.Dec()
	}
	return b.inner.Close()
}
