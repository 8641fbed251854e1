package realtime

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"time"
)

// Config sets up a production runtime. The zero value is a valid
// configuration: panics propagate, storage lives in a new directory under
// the system's temporary directory, the strategy pool has GOMAXPROCS
// workers, connections use the reference's timeouts, and no metrics
// endpoint is served.
type Config struct {
	// CatchPanics makes a task's panic an error from its Handle (a
	// *simrt.PanicError) instead of stopping the runtime. The root's own
	// panic always propagates out of Start. The default, false, stops the
	// runtime at the first task panic and re-raises it from Start after
	// every task has unwound.
	CatchPanics bool
	// StorageDirectory is where blobs live, one directory per partition.
	// Empty means a new directory os.TempDir()/simrt_realtime_<random>,
	// chosen when New is called. The runtime never deletes it.
	StorageDirectory string
	// Parallelism bounds the worker goroutines that strategies (see
	// Context.Strategy) run work on, across the whole runtime. Zero means
	// runtime.GOMAXPROCS(0); negative is invalid.
	Parallelism int
	// ConnectTimeout bounds a Dial. Zero means 10 s; negative is invalid.
	ConnectTimeout time.Duration
	// ReadWriteTimeout bounds one whole Send or Recv: a peer that stops
	// reading or writing for this long poisons the connection. Zero means
	// 60 s; negative is invalid.
	ReadWriteTimeout time.Duration
	// MetricsAddr, when set, is the TCP address ("127.0.0.1:9090", ":0")
	// of an HTTP endpoint serving GET /metrics in the Prometheus text
	// format: the runtime's metrics plus process and Go runtime metrics.
	// Empty, the default, serves nothing. Start panics if it cannot bind.
	MetricsAddr string
	// Logger receives the runtime's own records (task panics, the metrics
	// endpoint) and is the base of Context.Logger. Nil means
	// slog.Default().
	Logger *slog.Logger
}

const (
	defaultConnectTimeout   = 10 * time.Second
	defaultReadWriteTimeout = 60 * time.Second
)

// validate panics on an invalid config, naming the field, and fills in
// defaults.
func (c Config) validate() Config {
	if c.Parallelism < 0 {
		panic("realtime.New: Config.Parallelism must not be negative")
	}
	if c.ConnectTimeout < 0 {
		panic("realtime.New: Config.ConnectTimeout must not be negative")
	}
	if c.ReadWriteTimeout < 0 {
		panic("realtime.New: Config.ReadWriteTimeout must not be negative")
	}
	if c.Parallelism == 0 {
		c.Parallelism = goruntime.GOMAXPROCS(0)
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = defaultConnectTimeout
	}
	if c.ReadWriteTimeout == 0 {
		c.ReadWriteTimeout = defaultReadWriteTimeout
	}
	if c.StorageDirectory == "" {
		var b [8]byte
		rand.Read(b[:])
		c.StorageDirectory = filepath.Join(os.TempDir(), "simrt_realtime_"+hex.EncodeToString(b[:]))
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
