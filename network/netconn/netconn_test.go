package netconn_test

import (
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/netconn"
	"github.com/simrt/simrt/realtime"
)

// cutByClose parks a netconn Read on a new task, closes the conn from the
// calling task, and checks that the Read returns an error matching
// net.ErrClosed, as a net.Conn's does.
func cutByClose(t *testing.T, ctx netconn.Runtime, spawn func(func()) (wait func()), sleep func(time.Duration), n simrt.Network) {
	l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Errorf("Bind: %v", err)
		return
	}
	defer l.Close()
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		t.Errorf("Dial: %v", err)
		return
	}
	_, psi, pst, err := l.Accept()
	if err != nil {
		t.Errorf("Accept: %v", err)
		return
	}
	defer psi.Close()
	defer pst.Close()
	c := netconn.New(ctx, si, st, netip.AddrPort{}, l.Addr())
	var rerr error
	wait := spawn(func() {
		_, rerr = c.Read(make([]byte, 10))
	})
	sleep(10 * time.Millisecond) // let the Read park
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	wait()
	if !errors.Is(rerr, net.ErrClosed) {
		t.Errorf("Read cut by Close from another task: %v, want net.ErrClosed", rerr)
	}
}

// Close from another task cuts a parked NetConn Read, in the simulator
// and over TCP (run under -race, this shows the halves' Close does not
// race with the Read).
func TestNetConnCloseCutsParkedRead(t *testing.T) {
	t.Run("Simulated", func(t *testing.T) {
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
			cutByClose(t, ctx, func(f func()) func() {
				h := simrt.Spawn(ctx, func(simrt.Context) struct{} { f(); return struct{}{} })
				return func() { h.Await(ctx) }
			}, ctx.Sleep, ctx)
		})
	})
	t.Run("TCP", func(t *testing.T) {
		realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
			cutByClose(t, ctx, func(f func()) func() {
				h := simrt.Spawn(ctx, func(simrt.Context) struct{} { f(); return struct{}{} })
				return func() { h.Await(ctx) }
			}, ctx.Sleep, ctx)
		})
	})
}
