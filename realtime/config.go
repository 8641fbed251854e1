package realtime

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"time"

	"github.com/simrt/simrt/network/tcp"
)

// Config sets up a production runtime. The zero value is a valid
// configuration: panics propagate, storage lives in a new directory under
// the system's temporary directory, the strategy pool has GOMAXPROCS
// workers, connections use the default timeouts below, and no metrics
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
	// Start makes everything already in it durable (every file and
	// directory synced) before the root runs, so nothing a crashed earlier
	// process left in the page cache is read as if it were on disk.
	StorageDirectory string
	// Parallelism bounds the worker goroutines that strategies (see
	// Context.Strategy) run work on, across the whole runtime. Zero means
	// runtime.GOMAXPROCS(0); negative is invalid.
	Parallelism int
	// Network sets TCP socket options and timeouts. The zero value is the
	// default production network: TCP_NODELAY, a graceful close, a 10 s
	// connect timeout and 60 s read and write timeouts that bound each whole
	// Recv and Send, Recvs of at most 32 MiB that hold at most 256 MiB of
	// receive memory together, and no bound on connections (MaxConns).
	// Resolve is bounded by the connect timeout too.
	Network tcp.Config
	// MetricsAddr, when set, is the TCP address ("127.0.0.1:9090",
	// "127.0.0.1:0") of an HTTP endpoint serving GET /metrics in the
	// Prometheus text format: the runtime's metrics plus process and Go
	// runtime metrics. Empty, the default, serves nothing. Prefer a
	// loopback address: a host-less one (":9090") serves every interface.
	// If it cannot be bound, Start returns an error (wrapping the
	// operating system's) and runs nothing.
	MetricsAddr string
	// Metrics bounds the metrics endpoint's connections (timeouts, header
	// size). The zero value uses the defaults documented on each field.
	Metrics MetricsConfig
	// Timeout, when positive, bounds the run in wall time: once it has
	// passed, the root is aborted (it unwinds at its next park), the
	// runtime shuts down as when the root returns, and Start then panics
	// with an error matching ErrRunTimeout, unless a task's panic stopped
	// the run first. Zero, the default, means no limit.
	Timeout time.Duration
	// Logger receives the runtime's own records (task panics, the metrics
	// endpoint) and is the base of Context.Logger. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// defaultConnectTimeout bounds Resolve when Network.ConnectTimeout is
// zero, matching the tcp package's default.
const defaultConnectTimeout = 10 * time.Second

// validate panics on an invalid config, naming the field, and fills in
// defaults.
func (c Config) validate() Config {
	if c.Parallelism < 0 {
		panic("realtime.New: Config.Parallelism must not be negative")
	}
	if c.Timeout < 0 {
		panic("realtime.New: Config.Timeout must not be negative")
	}
	n := c.Network
	if n.ConnectTimeout < 0 || n.ReadTimeout < 0 || n.WriteTimeout < 0 || n.ReadBufferSize < 0 ||
		n.MaxRecvSize < 0 || n.MaxRecvMemory < 0 || n.MaxConns < 0 {
		panic("realtime.New: Config.Network fields must not be negative")
	}
	c.Metrics = c.Metrics.validate()
	if c.Parallelism == 0 {
		c.Parallelism = goruntime.GOMAXPROCS(0)
	}
	if c.Network.ConnectTimeout == 0 {
		c.Network.ConnectTimeout = defaultConnectTimeout
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
