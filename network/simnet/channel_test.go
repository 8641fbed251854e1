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

// loopback opens one connection on a network with the given buffer size.
func loopback(t *testing.T, ctx *deterministic.Context, buffer int) (a, b end) {
	n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, simnet.Config{BufferSize: buffer})
	l, _ := n.Bind(netip.MustParseAddrPort("127.0.0.1:1000"))
	si, st, err := n.Dial(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	_, psi, pst, _ := l.Accept()
	return end{si, st}, end{psi, pst}
}

// The in-memory channel tests of the reference (spec §6.2).
func TestChannel(t *testing.T) {
	run := func(name string, f func(t *testing.T, ctx *deterministic.Context, a, b end)) {
		t.Run(name, func(t *testing.T) {
			deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
				a, b := loopback(t, ctx, 10)
				f(t, ctx, a, b)
			})
		})
	}
	run("PartialMultiple", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		a.sink.Send([]byte("hel"))
		a.sink.Send([]byte("lo"))
		recvAt(t, ctx, b.stream, "he")
		recvAt(t, ctx, b.stream, "llo")
	})
	run("RecvBeforeSend", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			a.sink.Send([]byte("late"))
			return struct{}{}
		})
		recvAt(t, ctx, b.stream, "late")
	})
	run("RecvErrorWhenSinkClosedWhileWaiting", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			a.sink.Close()
			return struct{}{}
		})
		if _, err := b.stream.Recv(5); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("Recv: %v, want ErrRecvFailed", err)
		}
	})
	// The reference fails a Send once the peer's stream is gone; here, as
	// in production, the peer must have closed both halves: a peer that
	// closed only its stream still takes bytes.
	run("SendErrorWhenPeerClosedBeforeSend", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		b.stream.Close()
		if err := a.sink.Send([]byte("x")); err != nil {
			t.Errorf("Send to a peer that closed only its stream: %v, want nil", err)
		}
		b.sink.Close()
		if err := a.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Errorf("Send: %v, want ErrSendFailed", err)
		}
	})
	run("SendErrorWhenPeerClosedWhileBlocked", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		sinkClosed := false
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Millisecond)
			b.stream.Close()
			ctx.Sleep(time.Millisecond)
			sinkClosed = true
			b.sink.Close()
			return struct{}{}
		})
		if err := a.sink.Send(make([]byte, 20)); !errors.Is(err, simrt.ErrSendFailed) {
			t.Errorf("Send: %v, want ErrSendFailed", err)
		}
		if !sinkClosed {
			t.Errorf("Send failed before the peer closed its sink: a closed stream alone must keep it parked")
		}
	})
	run("PeekEmpty", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		if p := b.stream.Peek(10); len(p) != 0 {
			t.Errorf("Peek = %q", p)
		}
	})
	run("PeekMultipleSends", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		a.sink.Send([]byte("ab"))
		a.sink.Send([]byte("cd"))
		recvAt(t, ctx, b.stream, "a")
		if p := b.stream.Peek(10); string(p) != "bcd" {
			t.Errorf("Peek = %q, want %q", p, "bcd")
		}
	})
	// Buffer 10: a 16-byte send parks until a receive pulls the buffer
	// down to the limit; the pull takes max(n, 10) bytes locally.
	run("BufferSizeLimit", func(t *testing.T, ctx *deterministic.Context, a, b end) {
		sent := simrt.Spawn(ctx, func(ctx simrt.Context) error {
			return a.sink.Send([]byte("0123456789ABCDEF"))
		})
		ctx.Sleep(time.Millisecond)
		if sent.Done() {
			t.Fatalf("a 16-byte send into a 10-byte buffer did not park")
		}
		recvAt(t, ctx, b.stream, "01")
		if p := b.stream.Peek(100); string(p) != "23456789" {
			t.Errorf("Peek = %q, want %q", p, "23456789")
		}
		if err, _ := sent.Await(ctx); err != nil {
			t.Errorf("Send: %v", err)
		}
		recvAt(t, ctx, b.stream, "23456789ABCDEF")
	})
}
