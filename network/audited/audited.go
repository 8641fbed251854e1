// Package audited records every network operation on a runtime's auditor,
// so that two runs of one seed can be compared: bind, dial, accept, send
// (with the payload) and recv (with the bytes received). Peek is not
// recorded. Attempts are recorded before delegating, then the outcome. The
// labels are the constants of package telemetry/audit (audit.BindAttempt,
// audit.SendSuccess, ...).
//
// Smallest use, as the simulator wires it:
//
//	net := audited.New(simnet.New(rt, rng, nil, simnet.Config{}), auditor)
package audited

import (
	"encoding/binary"
	"net/netip"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/audit"
)

// Recorder receives one event per call: a label and its fields, each
// length-prefixed by the recorder. The fields are the wrapper's: a
// Recorder reads them during the call and neither modifies nor retains
// them (the wrapper reuses them for later events).
type Recorder interface {
	Event(label audit.Label, fields ...[]byte)
}

// chunkRecorder is a Recorder that can take one payload field in chunks,
// without their boundaries (the simulator's auditor can). Without it the
// chunks are joined first.
type chunkRecorder interface {
	EventChunks(label audit.Label, prefix [][]byte, chunks [][]byte)
}

// Network wraps a simrt.Network and records each operation. Every listener
// and half it returns is wrapped too. It is safe for concurrent use as far
// as its inner network and recorder are.
type Network struct {
	inner simrt.Network
	rec   Recorder
	eps   endpoints
}

var _ simrt.Network = (*Network)(nil)

// New returns inner, audited on rec.
func New(inner simrt.Network, rec Recorder) *Network { return &Network{inner: inner, rec: rec} }

// Bind implements simrt.Network.Bind: bind_attempt(local), then
// bind_failure(local, error) or bind_success(local).
func (n *Network) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	ep := n.eps.get(addr)
	n.rec.Event(audit.BindAttempt, ep.only...)
	l, err := n.inner.Bind(addr)
	if err != nil {
		n.rec.Event(audit.BindFailure, n.eps.withError(ep, err)...)
		return nil, err
	}
	n.rec.Event(audit.BindSuccess, ep.only...)
	return &listener{inner: l, rec: n.rec, local: n.eps.get(l.Addr())}, nil
}

// Dial implements simrt.Network.Dial: dial_attempt(remote), then
// dial_failure(remote, error) or dial_success(remote).
func (n *Network) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	ep := n.eps.get(addr)
	n.rec.Event(audit.DialAttempt, ep.only...)
	si, st, err := n.inner.Dial(addr)
	if err != nil {
		n.rec.Event(audit.DialFailure, n.eps.withError(ep, err)...)
		return nil, nil, err
	}
	n.rec.Event(audit.DialSuccess, ep.only...)
	return &sink{inner: si, rec: n.rec, remote: ep.addr}, &stream{inner: st, rec: n.rec, remote: ep.addr}, nil
}

type listener struct {
	inner simrt.Listener
	rec   Recorder
	local *endpoint // the listener's own address
}

// Accept implements simrt.Listener.Accept: accept_attempt(local), then
// accept_failure(local, error) or accept_success(local, peer).
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	l.rec.Event(audit.AcceptAttempt, l.local.only...)
	peer, si, st, err := l.inner.Accept()
	if err != nil {
		l.rec.Event(audit.AcceptFailure, l.local.addr, []byte(err.Error()))
		return peer, nil, nil, err
	}
	p := addrField(peer) // a fresh ephemeral port: not worth caching
	sk := &sink{inner: si, rec: l.rec, remote: p}
	sk.scratch[0], sk.scratch[1] = l.local.addr, p
	l.rec.Event(audit.AcceptSuccess, sk.scratch[:]...)
	sk.scratch = [2][]byte{}
	return peer, sk, &stream{inner: st, rec: l.rec, remote: p}, nil
}

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *listener) Close() error { return l.inner.Close() }

// sink records sends; remote is the peer for accepted connections and the
// dialed address for dialed ones.
type sink struct {
	inner  simrt.Sink
	rec    Recorder
	remote []byte
	// scratch holds the fields of one event: passing a slice of it to a
	// Recorder allocates nothing per Send. A half is used by one task at
	// a time.
	scratch [2][]byte
}

// Send implements simrt.Sink.Send: send_attempt(remote, payload), the
// payload as one field whatever its chunks, then send_failure(remote,
// error) or send_success(remote).
func (s *sink) Send(bufs ...[]byte) error {
	if cr, ok := s.rec.(chunkRecorder); ok {
		s.scratch[0] = s.remote
		cr.EventChunks(audit.SendAttempt, s.scratch[:1], bufs)
	} else {
		var joined []byte
		for _, b := range bufs {
			joined = append(joined, b...)
		}
		s.rec.Event(audit.SendAttempt, s.remote, joined)
	}
	if err := s.inner.Send(bufs...); err != nil {
		s.rec.Event(audit.SendFailure, s.remote, []byte(err.Error()))
		return err
	}
	s.scratch[0] = s.remote
	s.rec.Event(audit.SendSuccess, s.scratch[:1]...)
	return nil
}

// Close implements simrt.Sink.Close.
func (s *sink) Close() error { return s.inner.Close() }

type stream struct {
	inner   simrt.Stream
	rec     Recorder
	remote  []byte
	scratch [2][]byte // see sink.scratch
	n       [8]byte
}

// Recv implements simrt.Stream.Recv: recv_attempt(remote, n as 8 bytes
// big-endian), then recv_failure(remote, error) or recv_success(remote,
// bytes). An abandoned Recv records only its attempt.
func (s *stream) Recv(n int) ([]byte, error) {
	binary.BigEndian.PutUint64(s.n[:], uint64(n))
	s.scratch[0], s.scratch[1] = s.remote, s.n[:]
	s.rec.Event(audit.RecvAttempt, s.scratch[:]...)
	b, err := s.inner.Recv(n)
	if err != nil {
		s.rec.Event(audit.RecvFailure, s.remote, []byte(err.Error()))
		return nil, err
	}
	s.scratch[0], s.scratch[1] = s.remote, b
	s.rec.Event(audit.RecvSuccess, s.scratch[:]...)
	s.scratch[1] = nil
	return b, nil
}

// Peek implements simrt.Stream.Peek; it is not recorded.
func (s *stream) Peek(max int) []byte { return s.inner.Peek(max) }

// Close implements simrt.Stream.Close.
func (s *stream) Close() error { return s.inner.Close() }

// addrField returns a's text (AddrPort.String) as a new field, in one
// allocation: the longest an IPv4 address and port take, 21 bytes, fit
// without growing.
func addrField(a netip.AddrPort) []byte {
	return a.AppendTo(make([]byte, 0, len("255.255.255.255:65535")))
}
