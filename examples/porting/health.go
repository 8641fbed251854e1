// Package porting is the worked example of docs/PORTING.md: a health
// checker first written in plain Go (goroutines, an unbuffered channel,
// select, sync.RWMutex, sync.WaitGroup, sync.Once, time.Ticker,
// context.Context, net, math/rand), then ported to simrt, so that a test
// can run it in the simulator against backends that are up, slow or down,
// and the same code runs in production.
package porting

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/netconn"
)

// Checker probes every backend once per Interval, several at a time, and
// keeps the status of each.
type Checker struct {
	Backends []netip.AddrPort
	Interval time.Duration // between rounds
	Timeout  time.Duration // for one probe
	Workers  int           // probes in flight at once

	once   simrt.Once // was sync.Once
	mu     simrt.RWMutex
	status map[netip.AddrPort]Status
}

// Status is what the checker knows about one backend.
type Status struct {
	Up       bool
	Checks   int
	Failures int
	Last     time.Time // runtime time of the last check
}

// Run checks the backends every Interval until the runtime is stopped
// (ctx.Stop), which is how simrt code is told to shut down.
func (c *Checker) Run(ctx simrt.Context) {
	c.once.Do(ctx, func() { c.status = make(map[netip.AddrPort]Status) })
	ticker := simrt.NewTicker(ctx, c.Interval) // was time.NewTicker
	defer ticker.Stop()
	stop := ctx.Stopped()
	defer stop.Release()
	for {
		stopped := false
		simrt.Select(ctx, // was select { case <-ctx.Done(): ... case <-ticker.C: ... }
			stop.OnStop(func(int) { stopped = true }),
			ticker.OnTick(nil))
		if stopped {
			return
		}
		c.round(ctx)
	}
}

// round probes every backend once, with Workers tasks taking addresses
// from an unbuffered channel.
func (c *Checker) round(ctx simrt.Context) {
	jobs := simrt.NewChan[netip.AddrPort](0) // was make(chan netip.AddrPort)
	var wg simrt.WaitGroup                   // was sync.WaitGroup
	for range c.Workers {
		wg.Go(ctx, func(ctx simrt.Context) { // was wg.Add(1); go func() { defer wg.Done(); ... }()
			for addr, ok := jobs.Recv(ctx); ok; addr, ok = jobs.Recv(ctx) { // was for addr := range jobs
				jitter := time.Duration(ctx.Rand().Int64N(int64(c.Interval / 10))) // was rand.Int64N
				ctx.Sleep(jitter)                                                  // was time.Sleep
				err := simrt.Timeout(ctx, c.Timeout, func() error { return probe(ctx, addr) })
				c.record(ctx, addr, err)
			}
		})
	}
	for _, addr := range c.Backends {
		jobs.Send(ctx, addr) // was jobs <- addr
	}
	jobs.Close()
	wg.Wait(ctx)
}

func (c *Checker) record(ctx simrt.Context, addr netip.AddrPort, err error) {
	c.mu.Lock(ctx)
	defer c.mu.Unlock()
	s := c.status[addr]
	s.Checks++
	s.Up = err == nil
	s.Last = ctx.Now() // was time.Now()
	if err != nil {
		s.Failures++
	}
	c.status[addr] = s
}

// Status returns what the checker knows about addr.
func (c *Checker) Status(ctx simrt.Context, addr netip.AddrPort) Status {
	c.mu.RLock(ctx)
	defer c.mu.RUnlock()
	return c.status[addr]
}

// Report returns one line per backend, in address order: never in map
// order, which differs from run to run.
func (c *Checker) Report(ctx simrt.Context) string {
	c.mu.RLock(ctx)
	defer c.mu.RUnlock()
	addrs := make([]netip.AddrPort, 0, len(c.status))
	for a := range c.status {
		addrs = append(addrs, a)
	}
	slices.SortFunc(addrs, netip.AddrPort.Compare)
	var b strings.Builder
	for _, a := range addrs {
		s := c.status[a]
		fmt.Fprintf(&b, "%v up=%v checks=%d failures=%d\n", a, s.Up, s.Checks, s.Failures)
	}
	return b.String()
}

// probe dials addr and runs the exchange over a net.Conn whose deadlines
// count runtime time, with a context.Context carrying the Timeout's
// deadline.
func probe(ctx simrt.Context, addr netip.AddrPort) error {
	gctx, cancel := simrt.GoContext(ctx) // was the context from context.WithTimeout
	defer cancel()
	sink, stream, err := ctx.Dial(addr) // was (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	conn := netconn.New(ctx, sink, stream, netip.AddrPort{}, addr)
	defer conn.Close()
	return exchange(gctx, conn)
}

// exchange is protocol code that takes a context.Context and a net.Conn.
// It starts no goroutines, so it runs unchanged after the port.
func exchange(ctx context.Context, conn net.Conn) error {
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	if _, err := io.WriteString(conn, "PING\n"); err != nil {
		return err
	}
	reply := make([]byte, 5)
	if _, err := io.ReadFull(conn, reply); err != nil {
		return err
	}
	if string(reply) != "PONG\n" {
		return fmt.Errorf("bad reply %q", reply)
	}
	return nil
}

// Serve answers every PING on l with PONG, after delay, until l is closed
// or the task is aborted. It is the backend the tests run.
func Serve(ctx simrt.Context, l simrt.Listener, delay time.Duration) error {
	conns := ctx.Child("conn")
	for {
		_, sink, stream, err := l.Accept()
		if err != nil {
			return err
		}
		simrt.Spawn(conns, func(ctx simrt.Context) error {
			defer sink.Close()
			defer stream.Close()
			for {
				if _, err := stream.Recv(5); err != nil {
					return err
				}
				ctx.Sleep(delay)
				if err := sink.Send([]byte("PONG\n")); err != nil {
					return err
				}
			}
		})
	}
}
