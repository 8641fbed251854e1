package replication

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/simtest"
)

// TestReplication is the README's example: every seed cuts replicas off
// (a different one each round, in a different order per seed) while a
// client writes and another reads; every read must return the last write.
//
//	go test ./replication -simrt.seeds=0..999
func TestReplication(t *testing.T) {
	simtest.Explore(t, deterministic.Config{Timeout: time.Minute},
		func(t *testing.T, ctx *deterministic.Context) {
			if err := scenario(ctx, 0); err != nil {
				t.Fatal(err)
			}
		})
}

// Hosts of the simulated cluster.
var (
	replicaHosts = []netip.Addr{
		netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3"),
	}
	writerHost = netip.MustParseAddr("10.0.1.1")
	readerHost = netip.MustParseAddr("10.0.1.2")
)

// scenario starts three replicas and, for five rounds, isolates a random
// replica from the writer while it writes, then partitions another from
// the reader while it reads. quorum is the clients' Quorum (0: majority).
func scenario(ctx *deterministic.Context, quorum int) error {
	var addrs []netip.AddrPort
	for i, h := range replicaHosts {
		hctx := ctx.WithHost(h)
		l, err := hctx.Bind(netip.AddrPortFrom(h, 7000))
		if err != nil {
			return err
		}
		addrs = append(addrs, l.Addr())
		r := &Replica{}
		simrt.Spawn(hctx.Child(fmt.Sprintf("replica%d", i)), func(ctx simrt.Context) error { return r.Serve(ctx, l) })
	}
	writer := &Client{ID: 1, Replicas: addrs, Quorum: quorum}
	reader := &Client{ID: 2, Replicas: addrs, Quorum: quorum}
	wctx, rctx := ctx.WithHost(writerHost).Child("writer"), ctx.WithHost(readerHost).Child("reader")
	net, rng := ctx.Network(), ctx.Rand()
	for round := range 5 {
		value := fmt.Sprint("v", round)
		cut := replicaHosts[rng.IntN(len(replicaHosts))]
		net.Partition(writerHost, cut)
		err := writer.Put(wctx, value)
		net.Join(writerHost, cut)
		if err != nil {
			return fmt.Errorf("round %d: Put(%q) with %v cut off: %w", round, value, cut, err)
		}
		ctx.Sleep(time.Duration(rng.IntN(50)) * time.Millisecond)
		cut = replicaHosts[rng.IntN(len(replicaHosts))]
		net.Partition(readerHost, cut)
		got, err := reader.Get(rctx)
		net.Join(readerHost, cut)
		if err != nil {
			return fmt.Errorf("round %d: Get with %v cut off: %w", round, cut, err)
		}
		if got != value {
			return fmt.Errorf("round %d: Get = %q after Put(%q) (stale read; %v was cut off)", round, got, value, cut)
		}
	}
	return nil
}

// TestQuorumOfOneReadsStale checks that the scenario can fail: with
// clients that wait for one reply instead of a majority, some seed reads a
// value older than the last write.
func TestQuorumOfOneReadsStale(t *testing.T) {
	for seed := range uint64(50) {
		var err error
		deterministic.New(deterministic.Config{Seed: seed, Timeout: time.Minute}).Start(func(ctx *deterministic.Context) {
			err = scenario(ctx, 1)
		})
		if err != nil {
			t.Logf("seed %d: %v", seed, err)
			return
		}
	}
	t.Fatal("quorum of one: no seed in 0..49 read a stale value")
}

// TestNoQuorumWhenMajorityCut checks the error when two of three replicas
// are cut off: ErrNoQuorum, after the requests time out.
func TestNoQuorumWhenMajorityCut(t *testing.T) {
	simtest.Run(t, deterministic.Config{Seed: 1, Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
		var addrs []netip.AddrPort
		for _, h := range replicaHosts {
			hctx := ctx.WithHost(h)
			l, err := hctx.Bind(netip.AddrPortFrom(h, 7000))
			if err != nil {
				t.Fatal(err)
			}
			addrs = append(addrs, l.Addr())
			simrt.Spawn(hctx.Child("replica"), func(ctx simrt.Context) error { return (&Replica{}).Serve(ctx, l) })
		}
		ctx.Network().Isolate(replicaHosts[0])
		ctx.Network().Isolate(replicaHosts[2])
		c := &Client{ID: 1, Replicas: addrs}
		if err := c.Put(ctx.WithHost(writerHost), "x"); !errors.Is(err, ErrNoQuorum) {
			t.Fatalf("Put with two of three replicas cut off: %v, want ErrNoQuorum", err)
		}
	})
}

// TestReplicationRealtime runs the same replicas and clients over TCP on
// the loopback interface.
func TestReplicationRealtime(t *testing.T) {
	realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		var addrs []netip.AddrPort
		for range 3 {
			l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
			if err != nil {
				t.Fatal(err)
			}
			addrs = append(addrs, l.Addr())
			simrt.Spawn(ctx.Child("replica"), func(ctx simrt.Context) error { return (&Replica{}).Serve(ctx, l) })
		}
		w := &Client{ID: 1, Replicas: addrs, Timeout: 5 * time.Second}
		r := &Client{ID: 2, Replicas: addrs, Timeout: 5 * time.Second}
		for i := range 3 {
			want := fmt.Sprint("v", i)
			if err := w.Put(ctx, want); err != nil {
				t.Fatal(err)
			}
			if got, err := r.Get(ctx); err != nil || got != want {
				t.Fatalf("Get = %q, %v; want %q", got, err, want)
			}
		}
	})
}
