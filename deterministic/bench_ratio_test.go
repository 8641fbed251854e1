package deterministic

import (
	"iter"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// ratioBatch is how many resumes each side of BenchmarkResumeRatio runs
// before the other side takes over: short enough that both see the same
// load, long enough that reading the clock costs nothing measurable.
const ratioBatch = 10_000

// BenchmarkResumeRatio takes the ratio of issue 18's first target,
// ExecutorResume over PullShuffled, in one process under one load: the
// executor's resumes (n tasks rescheduling, with shuffle, audit and poll
// metric) and bare shuffled iter.Pull round trips over n coroutines run in
// alternating batches of about ratioBatch resumes, each timed on its own.
// It reports both costs per resume and, as "ratio", the median over the
// batch pairs of executor time over floor time, so that a burst of load
// from elsewhere moves one pair, not the figure. The executor's side is
// driven from inside the simulation: its root reschedules, and each of its
// turns is one executor iteration over every task.
func BenchmarkResumeRatio(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			f := newPullFloor(n)
			defer f.close()
			var ratios []float64
			var execNs, pullNs, execN, pullN int64
			stop := false
			b.ResetTimer()
			Seeded(1).Start(func(ctx *Context) {
				hs := make([]*simrt.Handle[struct{}], n)
				for i := range n {
					hs[i] = simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
						for !stop {
							simrt.Reschedule(ctx)
						}
						return struct{}{}
					})
				}
				simrt.Reschedule(ctx) // let every task reach its loop
				rounds := max(1, ratioBatch/n)
				for execN < int64(b.N) {
					before, t0 := ctx.rt.progress.Load(), time.Now()
					for range rounds {
						simrt.Reschedule(ctx)
					}
					e, en := time.Since(t0).Nanoseconds(), int64(ctx.rt.progress.Load()-before)
					t1 := time.Now()
					f.run(int(en))
					p := time.Since(t1).Nanoseconds()
					execNs, execN, pullNs, pullN = execNs+e, execN+en, pullNs+p, pullN+en
					ratios = append(ratios, float64(e)/float64(p))
				}
				stop = true
				for _, h := range hs {
					h.Await(ctx)
				}
			})
			b.StopTimer()
			slices.Sort(ratios)
			b.ReportMetric(float64(execNs)/float64(execN), "exec-ns/resume")
			b.ReportMetric(float64(pullNs)/float64(pullN), "pull-ns/resume")
			b.ReportMetric(ratios[len(ratios)/2], "ratio")
		})
	}
}

// pullFloor is BenchmarkPullShuffled's workload, run in batches: n bare
// iter.Pull coroutines resumed in an order reshuffled every n resumes.
type pullFloor struct {
	nexts []func() (struct{}, bool)
	stops []func()
	o     *order
	i     int
}

func newPullFloor(n int) *pullFloor {
	f := &pullFloor{nexts: make([]func() (struct{}, bool), n), stops: make([]func(), n), o: newOrder(n, true)}
	for i := range n {
		f.nexts[i], f.stops[i] = iter.Pull(func(yield func(struct{}) bool) {
			for yield(struct{}{}) {
			}
		})
	}
	f.run(n) // every coroutine started once, as the executor's tasks are
	return f
}

// run resumes k coroutines, continuing the order where the last batch
// stopped.
func (f *pullFloor) run(k int) {
	for range k {
		f.nexts[f.o.at(f.i)]()
		f.i++
	}
}

func (f *pullFloor) close() {
	for _, s := range f.stops {
		s()
	}
}
