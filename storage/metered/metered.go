// Package metered counts storage operations in Prometheus metrics, under
// these runtime_ names:
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
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
)

// The metrics' descriptions are immutable and shared by every metered
// storage, so building one (once per simulated run) creates no Desc and
// registers one collector.
var (
	descOpenBlobs  = prometheus.NewDesc("runtime_open_blobs", "Number of open blobs.", nil, nil)
	descReads      = prometheus.NewDesc("runtime_storage_reads_total", "Total number of disk reads.", nil, nil)
	descReadBytes  = prometheus.NewDesc("runtime_storage_read_bytes_total", "Total amount of data read from disk.", nil, nil)
	descWrites     = prometheus.NewDesc("runtime_storage_writes_total", "Total number of disk writes.", nil, nil)
	descWriteBytes = prometheus.NewDesc("runtime_storage_write_bytes_total", "Total amount of data written to disk.", nil, nil)
	descSyncs      = prometheus.NewDesc("runtime_storage_syncs_total", "Total number of disk syncs.", nil, nil)
	descResizes    = prometheus.NewDesc("runtime_storage_resizes_total", "Total number of disk resizes.", nil, nil)
)

// counter and gauge are the only operations the layer needs, on atomics.
type counter struct{ v atomic.Uint64 }

func (c *counter) Inc()           { c.v.Add(1) }
func (c *counter) Add(n float64)  { c.v.Add(uint64(n)) }
func (c *counter) value() float64 { return float64(c.v.Load()) }

type gauge struct{ v atomic.Int64 }

func (g *gauge) Inc()           { g.v.Add(1) }
func (g *gauge) Dec()           { g.v.Add(-1) }
func (g *gauge) value() float64 { return float64(g.v.Load()) }

// metrics is the layer's collector: the seven runtime_ storage metrics.
type metrics struct {
	openBlobs  gauge
	reads      counter
	readBytes  counter
	writes     counter
	writeBytes counter
	syncs      counter
	resizes    counter
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descOpenBlobs, descReads, descReadBytes, descWrites, descWriteBytes, descSyncs, descResizes} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descOpenBlobs, prometheus.GaugeValue, m.openBlobs.value())
	for _, c := range []struct {
		d *prometheus.Desc
		c *counter
	}{{descReads, &m.reads}, {descReadBytes, &m.readBytes}, {descWrites, &m.writes}, {descWriteBytes, &m.writeBytes}, {descSyncs, &m.syncs}, {descResizes, &m.resizes}} {
		ch <- prometheus.MustNewConstMetric(c.d, prometheus.CounterValue, c.c.value())
	}
}

var _ simrt.Storage = (*Storage)(nil)

// Storage counts the operations on the storage it wraps. Create it with
// New.
type Storage struct {
	inner simrt.Storage
	m     *metrics
}

// New wraps inner and registers its metrics with reg. If reg already holds
// them (another metered storage registered them), the existing ones are
// shared. New panics if reg refuses them for any other reason.
func New(inner simrt.Storage, reg prometheus.Registerer) *Storage {
	m := &metrics{}
	if err := reg.Register(m); err != nil {
		var are prometheus.AlreadyRegisteredError
		existing, ok := (*metrics)(nil), false
		if errors.As(err, &are) {
			existing, ok = are.ExistingCollector.(*metrics)
		}
		if !ok {
			panic("metered.New: " + err.Error())
		}
		m = existing
	}
	return &Storage{inner: inner, m: m}
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
