package deterministic

import (
	"iter"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/pool"
)

var benchSizes = []int{2, 100, 10_000}

// order yields the index of the i-th resume over n targets: round robin, or
// (shuffled) a new random permutation every n resumes, the executor's
// access pattern.
type order struct {
	n        int
	shuffled bool
	perm     []int
	r        *rand.Rand
}

func newOrder(n int, shuffled bool) *order {
	o := &order{n: n, shuffled: shuffled, perm: make([]int, n), r: rand.New(rand.NewPCG(1, 2))}
	for i := range o.perm {
		o.perm[i] = i
	}
	return o
}

func (o *order) at(i int) int {
	if !o.shuffled {
		return i % o.n
	}
	if i%o.n == 0 {
		o.r.Shuffle(o.n, func(a, c int) { o.perm[a], o.perm[c] = o.perm[c], o.perm[a] })
	}
	return o.perm[i%o.n]
}

// benchPull measures a bare iter.Pull park/resume round trip over n
// coroutines in the given order.
func benchPull(b *testing.B, shuffled bool) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			nexts := make([]func() (struct{}, bool), n)
			stops := make([]func(), n)
			for i := range n {
				nexts[i], stops[i] = iter.Pull(func(yield func(struct{}) bool) {
					for yield(struct{}{}) {
					}
				})
			}
			o := newOrder(n, shuffled)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nexts[o.at(i)]()
			}
			b.StopTimer()
			for _, s := range stops {
				s()
			}
		})
	}
}

// BenchmarkPullRoundTrip is the floor: one bare iter.Pull park/resume round
// trip, cycling over n coroutines in a fixed order.
func BenchmarkPullRoundTrip(b *testing.B) { benchPull(b, false) }

// BenchmarkPullShuffled is the same round trip in the executor's access
// pattern: every n resumes, the order of the n coroutines is reshuffled.
// With 10,000 coroutines their stacks no longer fit in cache, and this is
// the floor any stackful executor pays.
func BenchmarkPullShuffled(b *testing.B) { benchPull(b, true) }

// BenchmarkTimers1M sets 1,000,000 timers with random deadlines and lets
// them all fire; each timer costs O(log n).
func BenchmarkTimers1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Seeded(uint64(i)).Start(func(ctx *Context) {
			fired := 0
			last := time.Duration(-1)
			start := ctx.Now()
			for range 1_000_000 {
				ctx.AfterFunc(time.Duration(ctx.rt.rng.Int64N(int64(time.Hour))), func() {
					d := ctx.Now().Sub(start)
					if d < last {
						b.Fatal("timers fired out of order")
					}
					last = d
					fired++
				})
			}
			ctx.Sleep(2 * time.Hour)
			if fired != 1_000_000 {
				b.Fatalf("%d timers fired", fired)
			}
		})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1_000_000), "ns/timer")
}

// BenchmarkExecutorResume measures one resume+park of a task by the
// executor, with shuffling, auditing and metrics, over n tasks that each
// reschedule forever.
func BenchmarkExecutorResume(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			per := b.N/n + 1
			b.ResetTimer()
			Seeded(1).Start(func(ctx *Context) {
				hs := make([]*simrt.Handle[struct{}], n)
				for i := range n {
					hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
						for range per {
							simrt.Reschedule(ctx)
						}
						return struct{}{}
					})
				}
				for _, h := range hs {
					h.Await(ctx)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(per*n), "ns/resume")
		})
	}
}

// benchBaton is the alternative the design rejected: a baton handed
// between n goroutines, each waiting on its own channel, in the given order.
func benchBaton(b *testing.B, shuffled bool) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			chans := make([]chan struct{}, n)
			back := make(chan struct{})
			done := make(chan struct{})
			for i := range n {
				chans[i] = make(chan struct{})
				go func(c chan struct{}) {
					for {
						select {
						case <-c:
							back <- struct{}{}
						case <-done:
							return
						}
					}
				}(chans[i])
			}
			o := newOrder(n, shuffled)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				chans[o.at(i)] <- struct{}{}
				<-back
			}
			b.StopTimer()
			close(done)
		})
	}
}

// BenchmarkGoroutineBaton hands the baton round robin.
func BenchmarkGoroutineBaton(b *testing.B) { benchBaton(b, false) }

// BenchmarkGoroutineBatonShuffled is the baton executor doing the same work
// as the simulator: the order is reshuffled every n hand-offs.
func BenchmarkGoroutineBatonShuffled(b *testing.B) { benchBaton(b, true) }

// BenchmarkReschedule100k is the workload: 10,000 tasks × 100
// reschedules with auditing on; reports ns per resume.
func BenchmarkReschedule10kx100(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Seeded(uint64(i)).Start(func(ctx *Context) {
			hs := make([]*simrt.Handle[struct{}], 10_000)
			for i := range hs {
				hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
					for range 100 {
						simrt.Reschedule(ctx)
					}
					return struct{}{}
				})
			}
			for _, h := range hs {
				h.Await(ctx)
			}
		})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10_000*101), "ns/resume")
}

// BenchmarkSpawnFinish measures spawning a task that returns at once and
// awaiting it.
func BenchmarkSpawnFinish(b *testing.B) {
	b.ReportAllocs()
	Seeded(1).Start(func(ctx *Context) {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			h := simrt.Spawn(ctx, func(simrt.Context) int { return 1 })
			h.Await(ctx)
		}
		b.StopTimer()
	})
}

// BenchmarkEmptyRun measures a whole simulation that does nothing: what a
// seed sweep pays per seed (and per crash epoch) before the workload.
func BenchmarkEmptyRun(b *testing.B) {
	b.ReportAllocs()
	p := &pool.Coroutines{}
	defer p.Close()
	for i := 0; b.Loop(); i++ {
		New(Config{Seed: uint64(i), Hooks: Hooks{Coroutines: p}}).Start(func(*Context) {})
	}
}
