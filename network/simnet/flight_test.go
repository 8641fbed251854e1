package simnet_test

import (
	"bytes"
	"math/rand/v2"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// TestInFlightSendsShareOneBuffer: the bytes of Sends in flight on a link
// wait in one buffer per pipe, not in a copy per Send, and still arrive
// intact and in order, as one stream.
func TestInFlightSendsShareOneBuffer(t *testing.T) {
	const sends, size = 1000, 64
	deterministic.New(deterministic.Config{Seed: 1, Watchdog: -1}).Start(func(ctx *deterministic.Context) {
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
