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

// MetricsConfig bounds the connections of the metrics endpoint, so that
// idle or slow clients cannot hold sockets (and file descriptors) open
// without limit. Each zero field takes its default; a negative one is
// invalid.
type MetricsConfig struct {
	// ReadHeaderTimeout bounds reading a request's header, from the moment
	// the connection is accepted or the previous response was sent. Zero
	// means 5s.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a kept-alive connection on which no new request
	// starts within it. Zero means 30s.
	IdleTimeout time.Duration
	// WriteTimeout bounds the handling of a request and the writing of its
	// response, from the end of its header. Zero means 30s.
	WriteTimeout time.Duration
	// MaxHeaderBytes bounds the size of a request's header (net/http
	// allows 4 KiB of slack above it); a larger one is answered with
	// status 431. Zero means 8 KiB.
	MaxHeaderBytes int
}

// validate panics on a negative field, naming it, and fills in defaults.
func (c MetricsConfig) validate() MetricsConfig {
	if c.ReadHeaderTimeout < 0 || c.IdleTimeout < 0 || c.WriteTimeout < 0 || c.MaxHeaderBytes < 0 {
		panic("realtime.New: Config.Metrics fields must not be negative")
	}
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = 5 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 8 << 10
	}
	return c
}

// startMetrics binds addr and serves reg on it. A failure to bind is
// returned, wrapping the operating system's error.
func startMetrics(addr string, cfg MetricsConfig, reg *metrics.Registry, log *slog.Logger) (*metricsServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("realtime: metrics endpoint (Config.MetricsAddr %q): %w", addr, err)
	}
	g := prometheus.Gatherers{reg.Gatherer(), processGatherer()}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
	m := &metricsServer{
		ln: ln,
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: cfg.ReadHeaderTimeout,
			IdleTimeout:       cfg.IdleTimeout,
			WriteTimeout:      cfg.WriteTimeout,
			MaxHeaderBytes:    cfg.MaxHeaderBytes,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		served: make(chan struct{}),
	}
	log.Info("serving metrics", "addr", ln.Addr().String())
	go func() {
		defer close(m.served)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server failed", "err", err)
		}
	}()
	return m, nil
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
	if c.rt().metrics == nil {
		return nil
	}
	return c.rt().metrics.ln.Addr()
}
