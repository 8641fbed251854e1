package deterministic

import (
	"net/netip"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

// The simulated storage and network never block the executor, and many of
// their calls complete at once: a Send into a buffer with room, a Recv of
// bytes already there, an Accept with a queued connection, every storage
// call. Without a scheduling point such a call cannot be separated from
// the caller's next one. The wrappers below make every call of both
// stacks a scheduling point (core.Scheduler.Point, one KindYield decision
// when scheduling points are on, none with NoYield), taken before the call
// so that the operation, its audit record and its fault draws happen when
// the task runs again. storageStack and netStack apply them outermost, so
// every stack the runtime builds has them; the production runtime never
// builds these stacks.

// pointStorage makes every call of a simulated storage stack a scheduling
// point. Every blob it opens is wrapped too.
type pointStorage struct {
	inner simrt.Storage
	s     core.Scheduler
}

var _ simrt.Storage = (*pointStorage)(nil)

// withStoragePoints returns inner with a scheduling point of s before each
// of its calls and its blobs' calls.
func withStoragePoints(inner simrt.Storage, s core.Scheduler) simrt.Storage {
	return &pointStorage{inner: inner, s: s}
}

// Open implements simrt.Storage.Open.
func (p *pointStorage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	p.s.Point()
	b, size, err := p.inner.Open(partition, name)
	if err != nil {
		return nil, size, err
	}
	return &pointBlob{inner: b, s: p.s}, size, nil
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (p *pointStorage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	p.s.Point()
	b, size, v, err := p.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, size, v, err
	}
	return &pointBlob{inner: b, s: p.s}, size, v, nil
}

// Remove implements simrt.Storage.Remove.
func (p *pointStorage) Remove(partition string, name []byte) error {
	p.s.Point()
	return p.inner.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (p *pointStorage) RemovePartition(partition string) error {
	p.s.Point()
	return p.inner.RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan.
func (p *pointStorage) Scan(partition string) ([][]byte, error) {
	p.s.Point()
	return p.inner.Scan(partition)
}

// pointBlob is a blob of a pointStorage.
type pointBlob struct {
	inner simrt.Blob
	s     core.Scheduler
}

var _ simrt.Blob = (*pointBlob)(nil)

// ReadAt implements simrt.Blob.ReadAt.
func (b *pointBlob) ReadAt(p []byte, offset uint64) error {
	b.s.Point()
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt.
func (b *pointBlob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	b.s.Point()
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *pointBlob) Resize(size uint64) error {
	b.s.Point()
	return b.inner.Resize(size)
}

// Sync implements simrt.Blob.Sync.
func (b *pointBlob) Sync() error {
	b.s.Point()
	return b.inner.Sync()
}

// StartSync implements simrt.Blob.StartSync.
func (b *pointBlob) StartSync() *simrt.Handle[struct{}] {
	b.s.Point()
	return b.inner.StartSync()
}

// Close implements simrt.Blob.Close.
func (b *pointBlob) Close() error {
	b.s.Point()
	return b.inner.Close()
}

// pointNetwork makes every call of one host's simulated network stack a
// scheduling point. Every listener and half it returns is wrapped too.
type pointNetwork struct {
	inner simrt.Network
	s     core.Scheduler
}

var _ simrt.Network = (*pointNetwork)(nil)

// withNetworkPoints returns inner with a scheduling point of s before each
// of its calls and the calls of its listeners and connections.
func withNetworkPoints(inner simrt.Network, s core.Scheduler) simrt.Network {
	return &pointNetwork{inner: inner, s: s}
}

// Bind implements simrt.Network.Bind.
func (n *pointNetwork) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	n.s.Point()
	l, err := n.inner.Bind(addr)
	if err != nil {
		return nil, err
	}
	return &pointListener{inner: l, s: n.s}, nil
}

// Dial implements simrt.Network.Dial.
func (n *pointNetwork) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	n.s.Point()
	si, st, err := n.inner.Dial(addr)
	if err != nil {
		return nil, nil, err
	}
	return &pointSink{inner: si, s: n.s}, &pointStream{inner: st, s: n.s}, nil
}

// pointListener is a listener of a pointNetwork.
type pointListener struct {
	inner simrt.Listener
	s     core.Scheduler
}

var _ simrt.Listener = (*pointListener)(nil)

// Accept implements simrt.Listener.Accept.
func (l *pointListener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	l.s.Point()
	peer, si, st, err := l.inner.Accept()
	if err != nil {
		return peer, nil, nil, err
	}
	return peer, &pointSink{inner: si, s: l.s}, &pointStream{inner: st, s: l.s}, nil
}

// Addr implements simrt.Listener.Addr. It only reads the bound address:
// not a scheduling point.
func (l *pointListener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *pointListener) Close() error {
	l.s.Point()
	return l.inner.Close()
}

// pointSink is the sending half of a connection of a pointNetwork.
type pointSink struct {
	inner simrt.Sink
	s     core.Scheduler
}

var _ simrt.Sink = (*pointSink)(nil)

// Send implements simrt.Sink.Send.
func (s *pointSink) Send(bufs ...[]byte) error {
	s.s.Point()
	return s.inner.Send(bufs...)
}

// Close implements simrt.Sink.Close.
func (s *pointSink) Close() error {
	s.s.Point()
	return s.inner.Close()
}

// pointStream is the receiving half of a connection of a pointNetwork.
type pointStream struct {
	inner simrt.Stream
	s     core.Scheduler
}

var _ simrt.Stream = (*pointStream)(nil)

// Recv implements simrt.Stream.Recv.
func (s *pointStream) Recv(n int) ([]byte, error) {
	s.s.Point()
	return s.inner.Recv(n)
}

// Peek implements simrt.Stream.Peek.
func (s *pointStream) Peek(max int) []byte {
	s.s.Point()
	return s.inner.Peek(max)
}

// Close implements simrt.Stream.Close.
func (s *pointStream) Close() error {
	s.s.Point()
	return s.inner.Close()
}
