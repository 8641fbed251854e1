package deterministic

import (
	"net/netip"

	"github.com/simrt/simrt"
)

// The simulated storage and network never block the executor, and many of
// their calls complete at once: a Send into a buffer with room, a Recv of
// bytes already there, an Accept with a queued connection, every storage
// call. Without a scheduling point such a call cannot be separated from
// the caller's next one. The wrappers below make every call of both
// stacks a scheduling point (runtime.Point, one KindYield decision
// when scheduling points are on, none with NoYield), taken before the call
// so that the operation, its audit record and its fault draws happen when
// the task runs again. storageStack and netStack apply them outermost, so
// every stack the runtime builds has them; the production runtime never
// builds these stacks.

// ioPoint is the scheduling point of a storage or network call: Point,
// with its first test small enough to inline, so that with NoYield a call
// pays one branch.
func (rt *runtime) ioPoint() {
	if rt.sched.yieldAt != 0 || rt.sched.pct != nil {
		rt.Point()
	}
}

// pointStorage makes every call of a simulated storage stack a scheduling
// point. Every blob it opens is wrapped too.
type pointStorage struct {
	inner simrt.Storage
	rt    *runtime
}

var _ simrt.Storage = (*pointStorage)(nil)

// withStoragePoints returns inner with a scheduling point of rt before each
// of its calls and its blobs' calls.
func withStoragePoints(inner simrt.Storage, rt *runtime) simrt.Storage {
	return &pointStorage{inner: inner, rt: rt}
}

// Open implements simrt.Storage.Open.
func (p *pointStorage) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	p.rt.ioPoint()
	b, size, err := p.inner.Open(partition, name)
	if err != nil {
		return nil, size, err
	}
	return &pointBlob{inner: b, rt: p.rt}, size, nil
}

// OpenVersioned implements simrt.Storage.OpenVersioned.
func (p *pointStorage) OpenVersioned(partition string, name []byte, versions simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	p.rt.ioPoint()
	b, size, v, err := p.inner.OpenVersioned(partition, name, versions)
	if err != nil {
		return nil, size, v, err
	}
	return &pointBlob{inner: b, rt: p.rt}, size, v, nil
}

// Remove implements simrt.Storage.Remove.
func (p *pointStorage) Remove(partition string, name []byte) error {
	p.rt.ioPoint()
	return p.inner.Remove(partition, name)
}

// RemovePartition implements simrt.Storage.RemovePartition.
func (p *pointStorage) RemovePartition(partition string) error {
	p.rt.ioPoint()
	return p.inner.RemovePartition(partition)
}

// Scan implements simrt.Storage.Scan.
func (p *pointStorage) Scan(partition string) ([][]byte, error) {
	p.rt.ioPoint()
	return p.inner.Scan(partition)
}

// pointBlob is a blob of a pointStorage.
type pointBlob struct {
	inner simrt.Blob
	rt    *runtime
}

var _ simrt.Blob = (*pointBlob)(nil)

// ReadAt implements simrt.Blob.ReadAt.
func (b *pointBlob) ReadAt(p []byte, offset uint64) error {
	b.rt.ioPoint()
	return b.inner.ReadAt(p, offset)
}

// WriteAt implements simrt.Blob.WriteAt.
func (b *pointBlob) WriteAt(offset uint64, opts simrt.WriteOptions, bufs ...[]byte) error {
	b.rt.ioPoint()
	return b.inner.WriteAt(offset, opts, bufs...)
}

// Resize implements simrt.Blob.Resize.
func (b *pointBlob) Resize(size uint64) error {
	b.rt.ioPoint()
	return b.inner.Resize(size)
}

// Sync implements simrt.Blob.Sync.
func (b *pointBlob) Sync() error {
	b.rt.ioPoint()
	return b.inner.Sync()
}

// StartSync implements simrt.Blob.StartSync.
func (b *pointBlob) StartSync() *simrt.Handle[struct{}] {
	b.rt.ioPoint()
	return b.inner.StartSync()
}

// Close implements simrt.Blob.Close.
func (b *pointBlob) Close() error {
	b.rt.ioPoint()
	return b.inner.Close()
}

// pointNetwork makes every call of one host's simulated network stack a
// scheduling point. Every listener and half it returns is wrapped too.
type pointNetwork struct {
	inner simrt.Network
	rt    *runtime
}

var _ simrt.Network = (*pointNetwork)(nil)

// withNetworkPoints returns inner with a scheduling point of rt before each
// of its calls and the calls of its listeners and connections.
func withNetworkPoints(inner simrt.Network, rt *runtime) simrt.Network {
	return &pointNetwork{inner: inner, rt: rt}
}

// Bind implements simrt.Network.Bind.
func (n *pointNetwork) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	n.rt.ioPoint()
	l, err := n.inner.Bind(addr)
	if err != nil {
		return nil, err
	}
	return &pointListener{inner: l, rt: n.rt}, nil
}

// Dial implements simrt.Network.Dial.
func (n *pointNetwork) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	n.rt.ioPoint()
	si, st, err := n.inner.Dial(addr)
	if err != nil {
		return nil, nil, err
	}
	return &pointSink{inner: si, rt: n.rt}, &pointStream{inner: st, rt: n.rt}, nil
}

// pointListener is a listener of a pointNetwork.
type pointListener struct {
	inner simrt.Listener
	rt    *runtime
}

var _ simrt.Listener = (*pointListener)(nil)

// Accept implements simrt.Listener.Accept.
func (l *pointListener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	l.rt.ioPoint()
	peer, si, st, err := l.inner.Accept()
	if err != nil {
		return peer, nil, nil, err
	}
	return peer, &pointSink{inner: si, rt: l.rt}, &pointStream{inner: st, rt: l.rt}, nil
}

// Addr implements simrt.Listener.Addr. It only reads the bound address:
// not a scheduling point.
func (l *pointListener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *pointListener) Close() error {
	l.rt.ioPoint()
	return l.inner.Close()
}

// pointSink is the sending half of a connection of a pointNetwork.
type pointSink struct {
	inner simrt.Sink
	rt    *runtime
}

var _ simrt.Sink = (*pointSink)(nil)

// Send implements simrt.Sink.Send.
func (s *pointSink) Send(bufs ...[]byte) error {
	s.rt.ioPoint()
	return s.inner.Send(bufs...)
}

// Close implements simrt.Sink.Close.
func (s *pointSink) Close() error {
	s.rt.ioPoint()
	return s.inner.Close()
}

// pointStream is the receiving half of a connection of a pointNetwork.
type pointStream struct {
	inner simrt.Stream
	rt    *runtime
}

var _ simrt.Stream = (*pointStream)(nil)

// Recv implements simrt.Stream.Recv.
func (s *pointStream) Recv(n int) ([]byte, error) {
	s.rt.ioPoint()
	return s.inner.Recv(n)
}

// Peek implements simrt.Stream.Peek.
func (s *pointStream) Peek(max int) []byte {
	s.rt.ioPoint()
	return s.inner.Peek(max)
}

// Close implements simrt.Stream.Close.
func (s *pointStream) Close() error {
	s.rt.ioPoint()
	return s.inner.Close()
}
