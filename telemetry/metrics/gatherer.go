package metrics

import "github.com/prometheus/client_golang/prometheus"

// Gatherer returns the underlying client_golang gatherer, for serving the
// registry over HTTP with promhttp. Unlike Encode it does not sort or
// rewrite anything; promhttp negotiates the format with the scraper.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }
