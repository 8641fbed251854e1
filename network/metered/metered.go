// Package metered counts connections and bytes of a network in Prometheus
// counters (spec §6.4): runtime_inbound_connections_total (accepts),
// runtime_outbound_connections_total (dials), runtime_inbound_bandwidth_total
// (bytes received) and runtime_outbound_bandwidth_total (bytes sent). The
// counters are global to the network, not per connection, and failed
// operations count nothing.
//
// Smallest use:
//
//	net := metered.New(inner, prometheus.NewRegistry())
package metered

import (
	"errors"
	"net/netip"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/telemetry/metrics"
)

// Metrics are the four counters of a metered network. They form one
// collector, so a registry takes them in one registration.
type Metrics struct {
	InboundConnections  prometheus.Counter
	OutboundConnections prometheus.Counter
	InboundBandwidth    prometheus.Counter
	OutboundBandwidth   prometheus.Counter
}

var _ prometheus.Collector = (*Metrics)(nil)

// NewMetrics returns the counters registered on reg as one collector. If
// reg already holds them (an earlier NewMetrics or New on the same
// registry), it returns those, so several views of one network add up.
// It panics if reg refuses them for another reason.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		InboundConnections:  metrics.NewCounter(descInboundConnections),
		OutboundConnections: metrics.NewCounter(descOutboundConnections),
		InboundBandwidth:    metrics.NewCounter(descInboundBandwidth),
		OutboundBandwidth:   metrics.NewCounter(descOutboundBandwidth),
	}
	if err := reg.Register(m); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(*Metrics); ok {
				return existing
			}
		}
		panic("metered.NewMetrics: " + err.Error())
	}
	return m
}

// The counters' descriptors, immutable and shared by every Metrics: a
// simulation makes its Metrics once per seed, and a descriptor costs more
// to build than the counter (see metrics.NewCounter).
var (
	descInboundConnections  = prometheus.NewDesc("runtime_inbound_connections_total", "Number of connections created by dialing us", nil, nil)
	descOutboundConnections = prometheus.NewDesc("runtime_outbound_connections_total", "Number of connections created by dialing others", nil, nil)
	descInboundBandwidth    = prometheus.NewDesc("runtime_inbound_bandwidth_total", "Bandwidth used by receiving data from others", nil, nil)
	descOutboundBandwidth   = prometheus.NewDesc("runtime_outbound_bandwidth_total", "Bandwidth used by sending data to others", nil, nil)
)

func (m *Metrics) counters() [4]prometheus.Counter {
	return [4]prometheus.Counter{m.InboundConnections, m.OutboundConnections, m.InboundBandwidth, m.OutboundBandwidth}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.counters() {
		ch <- c.Desc()
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.counters() {
		ch <- c
	}
}

// Network wraps a simrt.Network and counts what passes through it. Every
// listener and half it returns is wrapped too.
type Network struct {
	inner simrt.Network
	m     *Metrics
}

var _ simrt.Network = (*Network)(nil)

// New returns inner, metered into counters registered on reg (see
// NewMetrics: a second New on the same registry shares the counters).
func New(inner simrt.Network, reg prometheus.Registerer) *Network {
	return WithMetrics(inner, NewMetrics(reg))
}

// WithMetrics returns inner, metered into m. A runtime that gives each of
// many hosts its own view of one network registers the counters once with
// NewMetrics and wraps every view with WithMetrics.
func WithMetrics(inner simrt.Network, m *Metrics) *Network {
	if m == nil {
		panic("metered.WithMetrics: nil Metrics")
	}
	return &Network{inner: inner, m: m}
}

// Metrics returns the counters, for tests and dashboards.
func (n *Network) Metrics() *Metrics { return n.m }

// Bind implements simrt.Network.Bind.
func (n *Network) Bind(addr netip.AddrPort) (simrt.Listener, error) {
	l, err := n.inner.Bind(addr)
	if err != nil {
		return nil, err
	}
	return &listener{inner: l, m: n.m}, nil
}

// Dial implements simrt.Network.Dial; a successful dial counts one
// outbound connection.
func (n *Network) Dial(addr netip.AddrPort) (simrt.Sink, simrt.Stream, error) {
	si, st, err := n.inner.Dial(addr)
	if err != nil {
		return nil, nil, err
	}
	n.m.OutboundConnections.Inc()
	return &sink{inner: si, m: n.m}, &stream{inner: st, m: n.m}, nil
}

type listener struct {
	inner simrt.Listener
	m     *Metrics
}

// Accept implements simrt.Listener.Accept; a successful accept counts one
// inbound connection.
func (l *listener) Accept() (netip.AddrPort, simrt.Sink, simrt.Stream, error) {
	peer, si, st, err := l.inner.Accept()
	if err != nil {
		return peer, nil, nil, err
	}
	l.m.InboundConnections.Inc()
	return peer, &sink{inner: si, m: l.m}, &stream{inner: st, m: l.m}, nil
}

// Addr implements simrt.Listener.Addr.
func (l *listener) Addr() netip.AddrPort { return l.inner.Addr() }

// Close implements simrt.Listener.Close.
func (l *listener) Close() error { return l.inner.Close() }

type sink struct {
	inner simrt.Sink
	m     *Metrics
}

// Send implements simrt.Sink.Send; a successful send adds its length to
// the outbound bandwidth.
func (s *sink) Send(bufs ...[]byte) error {
	n := 0
	for _, b := range bufs { // before Send, which may consume bufs
		n += len(b)
	}
	if err := s.inner.Send(bufs...); err != nil {
		return err
	}
	s.m.OutboundBandwidth.Add(float64(n))
	return nil
}

// Close implements simrt.Sink.Close.
func (s *sink) Close() error { return s.inner.Close() }

type stream struct {
	inner simrt.Stream
	m     *Metrics
}

// Recv implements simrt.Stream.Recv; a successful recv adds n to the
// inbound bandwidth.
func (s *stream) Recv(n int) ([]byte, error) {
	b, err := s.inner.Recv(n)
	if err != nil {
		return nil, err
	}
	s.m.InboundBandwidth.Add(float64(len(b)))
	return b, nil
}

// Peek implements simrt.Stream.Peek.
func (s *stream) Peek(max int) []byte { return s.inner.Peek(max) }

// Close implements simrt.Stream.Close.
func (s *stream) Close() error { return s.inner.Close() }
