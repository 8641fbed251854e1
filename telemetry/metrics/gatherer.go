package metrics

import "github.com/prometheus/client_golang/prometheus"

// Gatherer returns the underlying client_golang gatherer, for serving the
// registry over HTTP with promhttp. Unlike Encode it does not sort or
// rewrite anything; promhttp negotiates the format with the scraper.
//
// From the first call on, the registry registers collectors with
// client_golang at once (see Registerer), since the gatherer reads
// client_golang's registry directly.
func (r *Registry) Gatherer() prometheus.Gatherer {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.eager = true
	if err := r.flushLocked(); err != nil {
		panic("metrics: register: " + err.Error())
	}
	return r.reg
}
