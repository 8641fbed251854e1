package main

import (
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// plan is the part of the fault schedule fixed at the start of a run:
// when the whole cluster crashes, how long it stays down, and how much of
// a write that was never synced survives a crash.
type plan struct {
	crashes   []time.Duration // since the start, ascending
	downtime  []time.Duration
	retention float64 // per-byte survival rate of unsynced writes (prefix mode)
}

// drawPlan draws a plan for a run of length d: zero to two whole-cluster
// crashes while faults are active.
func drawPlan(rng *rand.Rand, d time.Duration) plan {
	var p plan
	n := rng.IntN(3)
	at := d / 10
	for range n {
		at += time.Duration(rng.Int64N(int64(d / 5)))
		p.crashes = append(p.crashes, at)
		p.downtime = append(p.downtime, time.Duration(rng.Int64N(int64(500*time.Millisecond))))
	}
	p.retention = []float64{0, 0.9, 0.999}[rng.IntN(3)]
	return p
}

// faultKind names one kind of fault the nemesis injects.
type faultKind int

const (
	faultIsolate   faultKind = iota // a node cut off from every other host
	faultPartition                  // the cluster split in two
	faultCut                        // a link cut one way
	faultClog                       // a link (or both directions) clogged
	faultSlow                       // every link slowed with latency and jitter
	faultCrash                      // one node's process crashed and restarted
	numFaultKinds
)

// faultNames are the kinds' names in the summary, indexed by faultKind.
var faultNames = [numFaultKinds]string{"isolate", "partition", "one-way cut", "clog", "slow links", "node crash"}

// String returns the kind's name in the summary.
func (k faultKind) String() string { return faultNames[k] }

// nemesis injects one network or process fault at a time until the faults
// heal: a node isolated, the cluster split in two, a link cut one way,
// links clogged, every link slowed with latency and jitter, or a node's
// process crashed and restarted. Each fault lasts a random while and is
// undone before the next; the last is undone by healAt.
func (s *sim) nemesis(ctx *deterministic.Context, c *cluster) {
	net := ctx.Network()
	rng := ctx.Rand()
	nodes := s.cfg.Nodes
	host := func(i int) netip.Addr { return nodeHost(uint64(i + 1)) }
	for {
		ctx.Sleep(100*time.Millisecond + time.Duration(rng.Int64N(int64(500*time.Millisecond))))
		left := s.healAt.Sub(ctx.Now())
		if left <= 0 {
			break
		}
		dur := min(200*time.Millisecond+time.Duration(rng.Int64N(int64(2*time.Second))), left)
		kind := faultKind(rng.IntN(int(numFaultKinds)))
		s.faults[kind]++
		switch kind {
		case faultIsolate:
			x := rng.IntN(nodes)
			s.log.printf(ctx, "fault: isolate n%d for %v", x+1, dur)
			net.Isolate(host(x))
			ctx.Sleep(dur)
			net.Rejoin(host(x))
		case faultPartition:
			order := shuffled(rng, nodes)
			minority := 1 + rng.IntN((nodes-1)/2)
			s.log.printf(ctx, "fault: partition %v | %v for %v", ids(order[:minority]), ids(order[minority:]), dur)
			for _, a := range order[:minority] {
				for _, b := range order[minority:] {
					net.Partition(host(a), host(b))
				}
			}
			ctx.Sleep(dur)
			for _, a := range order[:minority] {
				for _, b := range order[minority:] {
					net.Join(host(a), host(b))
				}
			}
		case faultCut:
			a, b := pair(rng, nodes)
			s.log.printf(ctx, "fault: cut n%d -> n%d (one way) for %v", a+1, b+1, dur)
			net.Cut(host(a), host(b))
			ctx.Sleep(dur)
			net.Heal(host(a), host(b))
		case faultClog:
			a, b := pair(rng, nodes)
			both := rng.IntN(2) == 0
			s.log.printf(ctx, "fault: clog n%d -> n%d (both ways: %v) for %v", a+1, b+1, both, dur)
			net.Clog(host(a), host(b))
			if both {
				net.Clog(host(b), host(a))
			}
			ctx.Sleep(dur)
			net.Release(host(a), host(b))
			if both {
				net.Release(host(b), host(a))
			}
		case faultSlow:
			l := simnet.Link{
				Latency: time.Duration(rng.Int64N(int64(40 * time.Millisecond))),
				Jitter:  time.Duration(rng.Int64N(int64(40 * time.Millisecond))),
			}
			s.log.printf(ctx, "fault: slow links (latency %v, jitter %v) for %v", l.Latency, l.Jitter, dur)
			net.SetDefaultLink(l)
			ctx.Sleep(dur)
			net.SetDefaultLink(baseLink)
		case faultCrash:
			x := uint64(rng.IntN(nodes) + 1)
			down := min(dur, 500*time.Millisecond)
			s.log.printf(ctx, "fault: crash n%d, restart after %v", x, down)
			c.crash(x)
			ctx.Sleep(down)
			c.start(x)
		}
	}
	s.log.printf(ctx, "faults healed")
}

// shuffled returns a seeded permutation of [0, n).
func shuffled(rng *rand.Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// pair returns two distinct node indexes.
func pair(rng *rand.Rand, n int) (int, int) {
	a := rng.IntN(n)
	b := (a + 1 + rng.IntN(n-1)) % n
	return a, b
}

// ids renders node indexes as 1-based ids.
func ids(idx []int) []int {
	out := make([]int, len(idx))
	for i, x := range idx {
		out[i] = x + 1
	}
	return out
}
