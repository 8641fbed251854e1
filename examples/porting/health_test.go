package porting

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// scenario starts three backends, one up, one too slow for the probe
// timeout, one down (nothing listens), runs the checker for a few rounds
// and returns its report. late is how many probes of the healthy backend
// may miss the timeout: 0 in simulated time; on the wall clock a loaded
// machine may delay one loopback probe past it.
func scenario(t *testing.T, ctx simrt.Context, up, slow, down netip.AddrPort, interval time.Duration, late int) (*Checker, string) {
	for _, b := range []struct {
		addr  netip.AddrPort
		delay time.Duration
	}{{up, 0}, {slow, 10 * interval}} {
		l, err := ctx.Bind(b.addr)
		if err != nil {
			t.Errorf("Bind %v: %v", b.addr, err)
			return nil, ""
		}
		defer l.Close()
		if b.delay == 0 {
			up = l.Addr()
		} else {
			slow = l.Addr()
		}
		simrt.Spawn(ctx.Child("backend"), func(ctx simrt.Context) error { return Serve(ctx, l, b.delay) })
	}
	c := &Checker{
		Backends: []netip.AddrPort{up, slow, down},
		Interval: interval,
		Timeout:  interval / 2,
		Workers:  2,
	}
	checker := simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) struct{} { c.Run(ctx); return struct{}{} })
	ctx.Sleep(5*interval + interval/2)
	if err := ctx.Stop(0, 10*interval); err != nil {
		t.Errorf("Stop: %v", err)
	}
	checker.Await(ctx)
	for _, w := range []struct {
		addr netip.AddrPort
		up   bool
	}{{up, true}, {slow, false}, {down, false}} {
		addr, want := w.addr, w.up
		s := c.Status(ctx, addr)
		healthy := s.Failures <= late && (s.Up || late > 0)
		if s.Checks < 4 || want && !healthy || !want && (s.Up || s.Failures != s.Checks) {
			t.Errorf("%v: %+v, want up=%v after 4 or 5 checks (at most %d late)", addr, s, want, late)
		}
	}
	return c, c.Report(ctx)
}

// TestCheckerSimulated runs the ported checker in the simulator: simulated
// time (5 rounds of 1s cost no real time), network and randomness.
func TestCheckerSimulated(t *testing.T) {
	up := netip.MustParseAddrPort("10.0.0.1:7000")
	slow := netip.MustParseAddrPort("10.0.0.2:7000")
	down := netip.MustParseAddrPort("10.0.0.3:7000")
	var reports, audits []string
	for range 2 {
		deterministic.New(deterministic.Config{Seed: 7, Timeout: time.Hour}).Start(func(ctx *deterministic.Context) {
			_, report := scenario(t, ctx, up, slow, down, time.Second, 0)
			reports = append(reports, report)
			audits = append(audits, ctx.Auditor().State())
		})
	}
	if reports[0] != reports[1] || audits[0] != audits[1] {
		t.Errorf("one seed, two runs: reports\n%s\n%s audit states %v", reports[0], reports[1], audits)
	}
	if !strings.Contains(reports[0], "10.0.0.1:7000 up=true") {
		t.Errorf("report:\n%s", reports[0])
	}
}

// TestCheckerSeeds runs the checker under several seeds: each one
// schedules the tasks differently and draws different jitter.
func TestCheckerSeeds(t *testing.T) {
	for seed := range uint64(20) {
		deterministic.New(deterministic.Config{Seed: seed, Timeout: time.Hour}).Start(func(ctx *deterministic.Context) {
			scenario(t, ctx,
				netip.MustParseAddrPort("10.0.0.1:7000"),
				netip.MustParseAddrPort("10.0.0.2:7000"),
				netip.MustParseAddrPort("10.0.0.3:7000"), time.Second, 0)
		})
	}
}

// TestCheckerRealtime runs the same code on the production runtime, over
// loopback TCP, with short intervals.
func TestCheckerRealtime(t *testing.T) {
	realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		// A port nobody listens on: bind one, note it, close it.
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
		if err != nil {
			t.Errorf("Bind: %v", err)
			return
		}
		down := l.Addr()
		l.Close()
		any := netip.MustParseAddrPort("127.0.0.1:0")
		scenario(t, ctx, any, any, down, 100*time.Millisecond, 1)
	})
}
