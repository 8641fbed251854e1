package simnet_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/audited"
	"github.com/simrt/simrt/network/simnet"
)

var (
	hostA = netip.MustParseAddr("10.0.0.1")
	hostB = netip.MustParseAddr("10.0.0.2")
	srvB  = netip.AddrPortFrom(hostB, 80)
)

// end is one side of a connection.
type end struct {
	sink   simrt.Sink
	stream simrt.Stream
}

// connect opens a connection from host a to a listener on b, on n.
func connect(t *testing.T, n *simnet.Network) (a, b end) {
	t.Helper()
	l, err := n.Bind(srvB)
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	si, st, err := n.Host(hostA).Dial(srvB)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	_, psi, pst, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	return end{si, st}, end{psi, pst}
}

// sim runs f on a fresh simulator with a fresh network of config cfg, on
// which hostA and hostB are declared hosts (so faults may name them before
// they dial).
func sim(t *testing.T, cfg simnet.Config, f func(ctx *deterministic.Context, n *simnet.Network)) {
	t.Helper()
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		n := simnet.New(ctx, rand.New(rand.NewPCG(1, 2)), nil, cfg)
		n.Host(hostA)
		n.Host(hostB)
		f(ctx, n)
	})
}

func recvAt(t *testing.T, ctx *deterministic.Context, st simrt.Stream, want string) time.Duration {
	t.Helper()
	start := ctx.Now()
	got, err := st.Recv(len(want))
	if err != nil || string(got) != want {
		t.Fatalf("Recv = %q, %v; want %q", got, err, want)
	}
	return ctx.Now().Sub(start)
}

// Bytes arrive after the transmission time (size / bandwidth) plus the
// latency; back-to-back sends queue behind each other on the link.
func TestLatencyAndBandwidthSetArrivalTimes(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.SetLink(hostA, hostB, simnet.Link{Latency: 10 * time.Millisecond, Bandwidth: 1000})
		a, b := connect(t, n)
		start := ctx.Now()
		a.sink.Send(make([]byte, 100)) // 100ms on the wire, arrives at 110ms
		a.sink.Send(make([]byte, 50))  // starts at 100ms, 50ms, arrives at 160ms
		b.stream.Recv(100)
		if got := ctx.Now().Sub(start); got != 110*time.Millisecond {
			t.Errorf("first 100 bytes arrived after %v, want 110ms", got)
		}
		b.stream.Recv(50)
		if got := ctx.Now().Sub(start); got != 160*time.Millisecond {
			t.Errorf("next 50 bytes arrived after %v, want 160ms", got)
		}
		// The reverse link is perfect.
		b.sink.Send([]byte("x"))
		if d := recvAt(t, ctx, a.stream, "x"); d != 0 {
			t.Errorf("reverse link took %v, want 0", d)
		}
	})
}

// A dial takes one round trip of the two links' latencies.
func TestDialTakesOneRoundTrip(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.SetLink(hostA, hostB, simnet.Link{Latency: 3 * time.Millisecond})
		n.SetLink(hostB, hostA, simnet.Link{Latency: 4 * time.Millisecond})
		start := ctx.Now()
		connect(t, n)
		if got := ctx.Now().Sub(start); got != 7*time.Millisecond {
			t.Errorf("dial took %v, want 7ms", got)
		}
	})
}

// Jitter delays sends by different amounts, yet one connection's bytes
// arrive in the order they were sent.
func TestJitterKeepsOrder(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.SetLink(hostA, hostB, simnet.Link{Latency: time.Millisecond, Jitter: 50 * time.Millisecond, Loss: 0.3})
		a, b := connect(t, n)
		var want bytes.Buffer
		for i := range 200 {
			msg := fmt.Appendf(nil, "%03d", i)
			want.Write(msg)
			a.sink.Send(msg)
			ctx.Sleep(time.Millisecond)
		}
		got, err := b.stream.Recv(want.Len())
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("received %q, %v; want %q", got, err, want.Bytes())
		}
	})
}

// A one-way partition holds bytes in one direction only; the other still
// flows. Healing delivers the held bytes in order.
func TestOneWayPartitionBlocksOneDirectionOnly(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, b := connect(t, n)
		n.Cut(hostA, hostB)
		a.sink.Send([]byte("held-"))
		a.sink.Send([]byte("in-order"))
		b.sink.Send([]byte("pong"))
		recvAt(t, ctx, a.stream, "pong")
		err := simrt.Timeout(ctx, time.Second, func() error { _, err := b.stream.Recv(1); return err })
		if !errors.Is(err, simrt.ErrTimeout) {
			t.Fatalf("Recv across a cut link: %v, want it to wait", err)
		}
		// That Recv was abandoned and poisoned b's stream, so open another
		// connection to watch the heal.
		l, _ := n.Bind(netip.AddrPortFrom(hostB, 81))
		n.Heal(hostA, hostB)
		si, _, err := n.Host(hostA).Dial(l.Addr())
		if err != nil {
			t.Fatalf("Dial after heal: %v", err)
		}
		n.Cut(hostA, hostB)
		si.Send([]byte("first "), []byte("second"))
		_, _, pst, _ := l.Accept()
		ctx.Sleep(time.Second)
		if p := pst.Peek(100); len(p) != 0 {
			t.Fatalf("bytes crossed a cut link: %q", p)
		}
		n.Heal(hostA, hostB)
		recvAt(t, ctx, pst, "first second")
	})
}

// Dials across a partition fail at once, or, with DialTimeout, wait and
// time out; a dial that waits succeeds if the partition heals in time.
func TestDialAcrossPartition(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.Bind(srvB)
		n.Cut(hostB, hostA) // one way is enough: a connection needs both
		if _, _, err := n.Host(hostA).Dial(srvB); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial: %v, want ErrConnectionFailed", err)
		}
		n.Isolate(hostB)
		n.Heal(hostB, hostA)
		if _, _, err := n.Host(hostA).Dial(srvB); !errors.Is(err, simrt.ErrConnectionFailed) {
			t.Errorf("Dial to an isolated host: %v, want ErrConnectionFailed", err)
		}
	})
	sim(t, simnet.Config{DialTimeout: 5 * time.Second}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.Bind(srvB)
		n.Partition(hostA, hostB)
		start := ctx.Now()
		if _, _, err := n.Host(hostA).Dial(srvB); !errors.Is(err, simrt.ErrTimeout) {
			t.Errorf("Dial: %v, want ErrTimeout", err)
		}
		if got := ctx.Now().Sub(start); got != 5*time.Second {
			t.Errorf("Dial gave up after %v, want 5s", got)
		}
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Second)
			n.Join(hostA, hostB)
			return struct{}{}
		})
		if _, _, err := n.Host(hostA).Dial(srvB); err != nil {
			t.Errorf("Dial healed in time: %v", err)
		}
	})
}

// With HoldTimeout, bytes held by a partition for too long reset their
// connection: both ends fail.
func TestHoldTimeoutResetsConnection(t *testing.T) {
	sim(t, simnet.Config{HoldTimeout: 2 * time.Second}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, b := connect(t, n)
		n.Cut(hostA, hostB)
		a.sink.Send([]byte("lost"))
		if _, err := b.stream.Recv(4); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("Recv: %v, want ErrRecvFailed", err)
		}
		if err := b.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Errorf("peer Send: %v, want ErrSendFailed", err)
		}
	})
}

// A clog holds everything on a link, in order, until released.
func TestClogHoldsUntilRelease(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, b := connect(t, n)
		n.Clog(hostA, hostB)
		for _, m := range []string{"one ", "two ", "three"} {
			a.sink.Send([]byte(m))
		}
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			ctx.Sleep(3 * time.Second)
			n.Release(hostA, hostB)
			return struct{}{}
		})
		// The releasing task starts a few executor cycles (1ms each) late.
		if d := recvAt(t, ctx, b.stream, "one two three"); d < 3*time.Second || d > 3*time.Second+10*time.Millisecond {
			t.Errorf("clogged bytes arrived after %v, want just after 3s (the release)", d)
		}
	})
}

// A reset (Reset rate 1) fails the Send that drew it with ErrSendFailed,
// and every half of both ends fails next: sends with ErrSendFailed,
// receives with ErrRecvFailed, then ErrClosed.
func TestResetClosesBothHalves(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		a, b := connect(t, n)
		b.sink.Send([]byte("buffered"))
		n.SetLink(hostA, hostB, simnet.Link{Reset: 1})
		if err := a.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Errorf("Send that reset: %v, want ErrSendFailed", err)
		}
		if err := a.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Send after reset: %v, want ErrClosed", err)
		}
		if _, err := a.stream.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("own Recv: %v, want ErrRecvFailed", err)
		}
		if _, err := b.stream.Recv(1); !errors.Is(err, simrt.ErrRecvFailed) {
			t.Errorf("peer Recv: %v, want ErrRecvFailed", err)
		}
		if _, err := b.stream.Recv(1); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("peer Recv again: %v, want ErrClosed", err)
		}
		if err := b.sink.Send([]byte("x")); !errors.Is(err, simrt.ErrSendFailed) {
			t.Errorf("peer Send: %v, want ErrSendFailed", err)
		}
	})
}

// Under random faults (jitter, loss, resets, partitions changing while
// traffic flows) the same seed gives the same audit state, and another
// seed gives another.
func TestSameSeedSameAuditUnderRandomFaults(t *testing.T) {
	run := func(seed uint64) string {
		var state string
		deterministic.Seeded(seed).Start(func(ctx *deterministic.Context) {
			n := simnet.New(ctx, rand.New(rand.NewPCG(seed, 0)), ctx.Auditor(), simnet.Config{HoldTimeout: 500 * time.Millisecond})
			net := audited.New(n, ctx.Auditor())
			n.SetDefaultLink(simnet.Link{Latency: 5 * time.Millisecond, Jitter: 20 * time.Millisecond, Bandwidth: 1 << 20, Loss: 0.1, Reset: 0.01})
			l, _ := net.Bind(srvB)
			simrt.Spawn(ctx.Child("server"), func(ctx simrt.Context) struct{} {
				for {
					_, si, st, err := l.Accept()
					if err != nil {
						return struct{}{}
					}
					simrt.Spawn(ctx.Child("echo"), func(ctx simrt.Context) struct{} {
						defer si.Close()
						defer st.Close()
						for {
							b, err := st.Recv(16)
							if err != nil || si.Send(b) != nil {
								return struct{}{}
							}
						}
					})
				}
			})
			// The chaos cuts the first client from the server. (It used to
			// partition hostA, which no client uses: a fault that did
			// nothing, now an error.)
			victim := netip.AddrFrom4([4]byte{10, 0, 1, 0})
			n.Host(victim)
			simrt.Spawn(ctx.Child("chaos"), func(ctx simrt.Context) struct{} {
				for {
					ctx.Sleep(time.Duration(ctx.Rand().IntN(300)) * time.Millisecond)
					if err := n.Partition(victim, hostB); err != nil {
						t.Error(err)
						return struct{}{}
					}
					ctx.Sleep(time.Duration(ctx.Rand().IntN(300)) * time.Millisecond)
					n.Join(victim, hostB)
				}
			})
			var clients []*simrt.Handle[int]
			for c := range 4 {
				host := netip.AddrFrom4([4]byte{10, 0, 1, byte(c)})
				clients = append(clients, simrt.Spawn(ctx.Child("client"), func(ctx simrt.Context) int {
					ok := 0
					for i := range 30 {
						si, st, err := audited.New(n.Host(host), deterministic.From(ctx).Auditor()).Dial(srvB)
						if err != nil {
							ctx.Sleep(10 * time.Millisecond)
							continue
						}
						msg := fmt.Appendf(nil, "client%d-msg%05d", c, i)
						if si.Send(msg) == nil {
							if b, err := st.Recv(16); err == nil && bytes.Equal(b, msg) {
								ok++
							}
						}
						si.Close()
						st.Close()
					}
					return ok
				}))
			}
			for _, h := range clients {
				h.Await(ctx)
			}
			state = ctx.Auditor().State()
		})
		return state
	}
	a, b, c := run(5), run(5), run(6)
	if a != b {
		t.Errorf("seed 5 gave audit states %s and %s", a, b)
	}
	if a == c {
		t.Errorf("seeds 5 and 6 gave the same audit state %s", a)
	}
}

// Control changes are recorded, and String describes the links that
// differ from perfect.
func TestControlStateDump(t *testing.T) {
	sim(t, simnet.Config{}, func(ctx *deterministic.Context, n *simnet.Network) {
		n.SetLink(hostA, hostB, simnet.Link{Latency: time.Millisecond})
		n.Cut(hostB, hostA)
		n.Clog(hostA, hostB)
		want := "10.0.0.1 -> 10.0.0.2: latency=1ms jitter=0s bandwidth=0 loss=0 retransmit=0s reset=0 clogged\n" +
			"10.0.0.2 -> 10.0.0.1: cut"
		if got := n.String(); got != want {
			t.Errorf("String() =\n%s\nwant\n%s", got, want)
		}
		n.HealAll()
		n.Release(hostA, hostB)
		if got := n.String(); got != "10.0.0.1 -> 10.0.0.2: latency=1ms jitter=0s bandwidth=0 loss=0 retransmit=0s reset=0" {
			t.Errorf("after HealAll and Release: %s", got)
		}
	})
}
