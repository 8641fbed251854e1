package simnet_test

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// cutByte is byte i of the byte sequence TestCutSendDeliversWhatLeft sends.
func cutByte(i int) byte { return byte(i ^ i>>8 ^ i>>16) }

// TestCutSendDeliversWhatLeft pins what the peer of a cut Send receives: of
// the cut Send's bytes, those below what the stream had pulled plus
// BufferSize (what back-pressure let the pipe hold), and nothing beyond,
// whether they were in flight or had arrived; then its Recv fails with
// ErrRecvFailed. Bytes in flight keep their arrival time.
func TestCutSendDeliversWhatLeft(t *testing.T) {
	const buf, big = simnet.DefaultBufferSize, 1 << 20
	cases := []struct {
		name    string
		latency time.Duration
		before  int // a Send of this many bytes first, which returns at once
		read    int // the peer takes this many bytes while the cut Send parks
		want    int // bytes the peer receives in all
	}{
		{name: "arrived, unread", want: buf},
		{name: "arrived, partly read", read: 100 << 10, want: 100<<10 + buf},
		{name: "arrived, buffer full before", before: buf, want: buf},
		{name: "in flight, unread", latency: time.Second, want: buf},
		{name: "in flight, buffer full before", latency: time.Second, before: buf, want: buf},
		{name: "in flight, part of buffer before", latency: time.Second, before: 1000, want: buf},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{Watchdog: -1}}).Start(func(ctx *deterministic.Context) {
				n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{})
				n.SetDefaultLink(simnet.Link{Latency: c.latency})
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
				stream := make([]byte, c.before+big)
				for i := range stream {
					stream[i] = cutByte(i)
				}
				start := ctx.Now()
				if c.before > 0 {
					if err := si.Send(stream[:c.before]); err != nil {
						t.Fatal(err)
					}
				}
				var got []byte
				if c.read > 0 {
					simrt.Spawn(ctx.Child("reader"), func(simrt.Context) []byte {
						p, err := st.Recv(c.read)
						if err != nil {
							t.Errorf("Recv(%d) while the Send parks: %v", c.read, err)
						}
						got = p
						return nil
					})
				}
				err = simrt.Timeout(ctx, 100*time.Millisecond, func() error { return si.Send(stream[c.before:]) })
				if !errors.Is(err, simrt.ErrTimeout) {
					t.Fatalf("the Send the peer does not take: got error %v, want ErrTimeout", err)
				}
				if len(got) != c.read {
					t.Fatalf("the reader took %d bytes before the cut, want %d", len(got), c.read)
				}
				for {
					p, err := st.Recv(max(1, len(st.Peek(big))))
					if err != nil {
						if !errors.Is(err, simrt.ErrRecvFailed) {
							t.Errorf("Recv after %d bytes: got error %v, want ErrRecvFailed", len(got), err)
						}
						break
					}
					got = append(got, p...)
				}
				if len(got) != c.want {
					t.Errorf("the peer received %d bytes, want %d", len(got), c.want)
				}
				for i, b := range got {
					if b != cutByte(i) {
						t.Fatalf("byte %d is %d, want %d", i, b, cutByte(i))
					}
				}
				if d := ctx.Now().Sub(start); d < c.latency {
					t.Errorf("the stream ended %v after the first Send, before the link's latency %v", d, c.latency)
				}
			})
		})
	}
}
