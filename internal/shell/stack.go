package shell

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/simrt/simrt"
	naudited "github.com/simrt/simrt/network/audited"
	nmetered "github.com/simrt/simrt/network/metered"
	saudited "github.com/simrt/simrt/storage/audited"
	smetered "github.com/simrt/simrt/storage/metered"
)

// The stacks below are the one place that fixes the order of the layers
// of a runtime's storage and network, from the outside in:
//
//	outer (the runtime's own: scheduling points, blob tracking)
//	→ metered → audited (when the runtime audits) → device
//
// The device is the runtime's: in the simulator, fault injection
// (storage/faulty, simnet's links) over memory or the simulated network;
// in production, the disk or TCP.

// StorageStack returns dev wrapped in an audited layer recording to rec
// (none when rec is nil), then a metered layer registered on reg, then
// outer (none when nil).
func StorageStack(dev simrt.Storage, rec Recorder, reg prometheus.Registerer, outer func(simrt.Storage) simrt.Storage) simrt.Storage {
	s := dev
	if rec != nil {
		s = saudited.New(s, rec)
	}
	s = smetered.New(s, reg)
	if outer != nil {
		s = outer(s)
	}
	return s
}

// NetworkStack returns dev wrapped in an audited layer recording to rec
// (none when rec is nil), then a metered layer counting into m, then outer
// (none when nil).
func NetworkStack(dev simrt.Network, rec Recorder, m *nmetered.Metrics, outer func(simrt.Network) simrt.Network) simrt.Network {
	n := dev
	if rec != nil {
		n = naudited.New(n, rec)
	}
	n = nmetered.WithMetrics(n, m)
	if outer != nil {
		n = outer(n)
	}
	return n
}
