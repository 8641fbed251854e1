package simnet_test

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// Config.MaxRecvMemory bounds each host's receive memory, as tcp bounds a
// process's: with a Recv on host A holding 3 KiB beyond the 1 KiB buffer,
// a second one on A that would hold 3 KiB more fails with ErrRecvMemory,
// while one on host B, whose memory is its own, succeeds.
func TestMaxRecvMemoryIsPerHost(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{BufferSize: 1 << 10, MaxRecvMemory: 4 << 10})
		a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
		n.Host(a)
		n.Host(b)
		// recvOn connects from the other host to host, sends size bytes,
		// and returns the receiving stream.
		recvOn := func(host, from netip.Addr, size int) simrt.Stream {
			l, err := n.Bind(netip.AddrPortFrom(host, 0))
			if err != nil {
				t.Fatal(err)
			}
			si, _, err := n.Host(from).Dial(l.Addr())
			if err != nil {
				t.Fatal(err)
			}
			_, _, st, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			simrt.Spawn(ctx, func(simrt.Context) int { si.Send(make([]byte, size)); return 0 })
			return st
		}
		first := recvOn(a, b, 4<<10)
		simrt.Spawn(ctx, func(simrt.Context) int { first.Recv(6 << 10); return 0 }) // parks holding 3 KiB
		ctx.Sleep(time.Millisecond)

		if _, err := recvOn(b, a, 4<<10).Recv(4 << 10); err != nil {
			t.Errorf("Recv(4 KiB) on host B while host A holds 3 KiB: %v, want it to succeed", err)
		}
		_, err := recvOn(a, b, 4<<10).Recv(4 << 10)
		if !errors.Is(err, simrt.ErrRecvMemory) || !errors.Is(err, simrt.ErrRecvFailed) || !strings.Contains(err.Error(), "MaxRecvMemory") {
			t.Errorf("Recv(4 KiB) on host A while it holds 3 KiB: %v, want ErrRecvMemory naming MaxRecvMemory", err)
		}
		first.Close()
		if _, err := recvOn(a, b, 4<<10).Recv(4 << 10); err != nil {
			t.Errorf("Recv(4 KiB) on host A once its other stream closed: %v, want it to succeed", err)
		}
	})
}
