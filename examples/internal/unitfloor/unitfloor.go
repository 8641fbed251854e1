// Package unitfloor measures the unit floors of a simulator built like
// simrt: the least a bare coroutine resume, an audited event, a timer, a
// random draw, a hashed byte and a copied byte cost on this machine. The
// examples' floor benchmarks (raftkv's BenchmarkSeedFloor, electbench's
// BenchmarkRunFloor) multiply their runs' counts by these.
package unitfloor

import (
	"hash/crc32"
	"iter"
	"math/rand/v2"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/audit"
)

// Units are the unit floors, in ns, of what a simulator does per event: the least any simulator built like simrt (stackful tasks, one
// seeded generator, a fingerprint of every event, a timer heap) pays.
type Units struct {
	Resume float64 // a bare iter.Pull park/resume round trip, shuffled over the run's tasks
	Event  float64 // an audited event of the cheapest shape (the timer's: one 8-byte field)
	Timer  float64 // a timer set and popped on a plain binary heap of the run's size
	Draw   float64 // one ChaCha8 Uint64
	Hash   float64 // CRC-32C of one byte, in 4 KB pieces (the auditor's fingerprint of a field's bytes)
	Copy   float64 // copying one byte, in 4 KB pieces (a payload moved once)
}

// minNs runs f(n) rounds times and returns the least time per iteration,
// read on now: on a shared machine the least is the nearest to the unit's
// own cost.
func minNs(now func() time.Time, n, rounds int, f func(n int)) float64 {
	best := time.Duration(1 << 62)
	for range rounds {
		t0 := now()
		f(n)
		best = min(best, now().Sub(t0))
	}
	return float64(best.Nanoseconds()) / float64(n)
}

// Measure measures the unit floors on the clock now (a benchmark's
// time.Now: the package itself reads no clock, as the examples' vet check
// asks); tasks is the number of coroutines the resumes cycle over and
// timers the heap's size.
func Measure(now func() time.Time, tasks, timers int) Units {
	const n, rounds = 1 << 20, 5
	var u Units

	nexts := make([]func() (struct{}, bool), tasks)
	stops := make([]func(), tasks)
	for i := range nexts {
		nexts[i], stops[i] = iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
	}
	perm := make([]int, tasks)
	for i := range perm {
		perm[i] = i
	}
	rng := rand.New(rand.NewPCG(1, 2))
	u.Resume = minNs(now, n, rounds, func(n int) {
		for i := 0; i < n; i++ {
			if i%tasks == 0 {
				rng.Shuffle(tasks, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			}
			nexts[perm[i%tasks]]()
		}
	})
	for _, s := range stops {
		s()
	}

	a := deterministic.NewAuditor()
	when := make([]byte, 8)
	u.Event = minNs(now, n, rounds, func(n int) {
		for range n {
			a.Event(audit.Timer, when)
		}
	})

	h := make(floorHeap, 0, timers+1)
	var seq uint64
	for range timers {
		seq++
		h.push(floorTimer{at: int64(rng.Uint64N(1 << 30)), seq: seq})
	}
	u.Timer = minNs(now, n, rounds, func(n int) {
		for range n {
			top := h.pop()
			seq++
			h.push(floorTimer{at: top.at + int64(rng.Uint64N(1<<20)), seq: seq})
		}
	})

	c := rand.NewChaCha8([32]byte{1})
	var sink uint64
	u.Draw = minNs(now, n, rounds, func(n int) {
		for range n {
			sink += c.Uint64()
		}
	})
	_ = sink

	const piece = 4096
	src, dst := make([]byte, piece), make([]byte, piece)
	var crc uint32
	table := crc32.MakeTable(crc32.Castagnoli)
	u.Hash = minNs(now, n/16, rounds, func(n int) {
		for range n {
			crc = crc32.Update(crc, table, src)
		}
	}) / piece
	_ = crc
	u.Copy = minNs(now, n/16, rounds, func(n int) {
		for range n {
			copy(dst, src)
		}
	}) / piece
	return u
}

// floorTimer is a timer of the floor's heap: its deadline and sequence.
type floorTimer struct {
	at  int64
	seq uint64
}

// floorHeap is the plainest timer heap: a binary min-heap by (at, seq).
type floorHeap []floorTimer

func (t floorTimer) before(o floorTimer) bool {
	return t.at < o.at || t.at == o.at && t.seq < o.seq
}

func (h *floorHeap) push(t floorTimer) {
	*h = append(*h, t)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *floorHeap) pop() floorTimer {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s[l].before(s[m]) {
			m = l
		}
		if r := l + 1; r < len(s) && s[r].before(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
