package simnet

import (
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Unix(0, 0)

// The link model is pure: arrival = start of transmission (after the
// link's queue) + size/bandwidth + latency, never before the connection's
// previous bytes.
func TestTransitArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := Link{Latency: 10 * time.Millisecond, Bandwidth: 1000}
	at, free := l.transit(t0, t0, t0, 100, rng, new(uint64))
	if at != t0.Add(110*time.Millisecond) || free != t0.Add(100*time.Millisecond) {
		t.Errorf("transit = %v, %v", at.Sub(t0), free.Sub(t0))
	}
	// queued behind the first send
	at, free = l.transit(t0, free, at, 1, rng, new(uint64))
	if at != t0.Add(111*time.Millisecond) || free != t0.Add(101*time.Millisecond) {
		t.Errorf("queued transit = %v, %v", at.Sub(t0), free.Sub(t0))
	}
	// in order even when a faster path would overtake
	fast := Link{}
	if at, _ := fast.transit(t0, t0, t0.Add(time.Second), 1, rng, new(uint64)); at != t0.Add(time.Second) {
		t.Errorf("overtook previous bytes: %v", at.Sub(t0))
	}
}

// A perfect link, and zero fault rates, draw nothing from the generator.
func TestPerfectLinkDrawsNothing(t *testing.T) {
	src := rand.NewPCG(1, 2)
	before := *src
	Link{Latency: time.Second, Bandwidth: 5}.transit(t0, t0, t0, 100, rand.New(src), new(uint64))
	if *src != before {
		t.Errorf("a link without jitter or loss drew from the generator")
	}
}

// Loss adds the retransmission delay, doubling, at most maxRetransmits
// times.
func TestLossAddsRetransmissions(t *testing.T) {
	l := Link{Loss: 1, Retransmit: time.Millisecond}
	at, _ := l.transit(t0, t0, t0, 1, rand.New(rand.NewPCG(1, 2)), new(uint64))
	if want := time.Duration(1<<maxRetransmits-1) * time.Millisecond; at.Sub(t0) != want {
		t.Errorf("certain loss delays by %v, want %v", at.Sub(t0), want)
	}
}

func TestTxTimeRoundsUp(t *testing.T) {
	for _, c := range []struct {
		n    int
		bw   int64
		want time.Duration
	}{{1000, 1000, time.Second}, {1, 3, 333333334}, {10, 1 << 62, 1}, {0, 7, 0}} {
		if got := txTime(c.n, c.bw); got != c.want {
			t.Errorf("txTime(%d, %d) = %v, want %v", c.n, c.bw, got, c.want)
		}
	}
}
