package simnet_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// TestInFlightSendsShareOneBuffer: the bytes of Sends in flight on a link
// wait in one buffer per pipe, not in a copy per Send, and still arrive
// intact and in order, as one stream.
func TestInFlightSendsShareOneBuffer(t *testing.T) {
	const sends, size = 1000, 64
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		n.SetDefaultLink(simnet.Link{Latency: 10 * time.Millisecond})
		l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:80"))
		if err != nil {
			t.Fatal(err)
		}
		si, _, err := n.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_, _, st, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([][][]byte, sends)
		var want []byte
		for i := range msgs {
			m := bytes.Repeat([]byte{byte(i)}, size)
			msgs[i] = [][]byte{m}
			want = append(want, m...)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, m := range msgs { // all in flight: none arrives before 10 ms
			if err := si.Send(m...); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if allocs := after.Mallocs - before.Mallocs; allocs > sends/10 {
			t.Errorf("%d Sends in flight made %d allocations, want at most %d (amortised buffer growth)", sends, allocs, sends/10)
		}
		got, err := st.Recv(sends * size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Error("the stream's bytes differ from what was sent")
		}
	})
}

// TestSmallRecvsAreCarved: small Recv results come out of a chunk shared
// by the network's pipes, so they cost no allocation of their own, and each is still the
// caller's alone: writing to one, or appending to it, leaves the others
// as they were.
func TestSmallRecvsAreCarved(t *testing.T) {
	const msgs, size = 1000, 36
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{BufferSize: 1 << 20})
		l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:80"))
		if err != nil {
			t.Fatal(err)
		}
		si, _, err := n.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_, _, st, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		var all []byte
		for i := range msgs {
			all = append(all, bytes.Repeat([]byte{byte(i)}, size)...)
		}
		if err := si.Send(all); err != nil {
			t.Fatal(err)
		}
		got := make([][]byte, msgs)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range got {
			if got[i], err = st.Recv(size); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if allocs := after.Mallocs - before.Mallocs; allocs > msgs/10 {
			t.Errorf("%d Recvs of %d bytes made %d allocations, want at most %d", msgs, size, allocs, msgs/10)
		}
		for i, g := range got {
			if cap(g) != size {
				t.Fatalf("Recv %d: cap %d, want %d (the caller's alone)", i, cap(g), size)
			}
		}
		got[0][size-1] = 0xff
		got[0] = append(got[0], 0xee)
		for i, g := range got[1:] {
			if !bytes.Equal(g, bytes.Repeat([]byte{byte(i + 1)}, size)) {
				t.Fatalf("Recv %d changed by writing to and appending to Recv 0", i+1)
			}
		}
	})
}

// Connections that each carry a few small messages share the chunks their
// Recv results are carved from: 200 Recvs over 20 connections allocate a
// handful of chunks, not two per connection.
func TestFewRecvsPerConnectionShareChunks(t *testing.T) {
	const conns, msgs, size = 20, 10, 36
	deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
		l, err := n.Bind(netip.MustParseAddrPort("127.0.0.1:80"))
		if err != nil {
			t.Fatal(err)
		}
		var streams []simrt.Stream
		for range conns {
			si, _, err := n.Dial(l.Addr())
			if err != nil {
				t.Fatal(err)
			}
			if err := si.Send(make([]byte, msgs*size)); err != nil {
				t.Fatal(err)
			}
			_, _, st, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, st)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, st := range streams {
			for range msgs {
				if _, err := st.Recv(size); err != nil {
					t.Fatal(err)
				}
			}
		}
		runtime.ReadMemStats(&after)
		if allocs := after.Mallocs - before.Mallocs; allocs > 10 {
			t.Errorf("%d Recvs of %d bytes over %d connections made %d allocations, want at most 10",
				conns*msgs, size, conns, allocs)
		}
	})
}
