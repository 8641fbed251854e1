package realtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/simrt/simrt/telemetry/metrics"
)

// metricsServer is the optional /metrics endpoint. It listens on a plain
// TCP socket, outside the runtime's network, and stops at shutdown.
type metricsServer struct {
	ln     net.Listener
	srv    *http.Server
	served chan struct{}
}

// processGatherer returns the process and Go runtime metrics operators
// expect next to the runtime's own (runtime_process_resident_memory_bytes,
// runtime_process_cpu_seconds_total, go_goroutines, ...).
func processGatherer() prometheus.Gatherer {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: metrics.Prefix}),
		collectors.NewGoCollector(),
	)
	return reg
}

func startMetrics(addr string, reg *metrics.Registry, log *slog.Logger) *metricsServer {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		panic(fmt.Sprintf("realtime: failed to bind metrics server on %s: %v", addr, err))
	}
	g := prometheus.Gatherers{reg.Gatherer(), processGatherer()}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	m := &metricsServer{
		ln:     ln,
		srv:    &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		served: make(chan struct{}),
	}
	log.Info("serving metrics", "addr", ln.Addr().String())
	go func() {
		defer close(m.served)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server failed", "err", err)
		}
	}()
	return m
}

// close lets scrapes in progress finish (for up to a second), then closes
// every connection and waits for the server to stop.
func (m *metricsServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = m.srv.Shutdown(ctx)
	_ = m.srv.Close()
	<-m.served
}

// MetricsAddr returns the address the metrics endpoint listens on, or nil
// when Config.MetricsAddr is empty.
func (c *Context) MetricsAddr() net.Addr {
	if c.scope.rt.metrics == nil {
		return nil
	}
	return c.scope.rt.metrics.ln.Addr()
}
