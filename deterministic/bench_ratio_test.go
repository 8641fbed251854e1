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
// alternating batches of about ratioBatch resumes, each timed on its own in
// CPU time (cpuNow), so that being descheduled on a loaded machine counts
// against neither side. It reports both costs per resume and, as "ratio",
// the median over the batch pairs of executor time over floor time, so that
// a burst of cache pressure from elsewhere moves one pair, not the figure;
// "wall-ratio" is the same median in wall time. The executor's side is
// driven from inside the simulation: its root reschedules, and each of its
// turns is one executor iteration over every task.
func BenchmarkResumeRatio(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			f := newPullFloor(n)
			defer f.close()
			var ratios, wall []float64
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
					before, w0, c0 := ctx.rt.progress.Load(), time.Now(), cpuNow()
					for range rounds {
						simrt.Reschedule(ctx)
					}
					en := int64(ctx.rt.progress.Load() - before)
					w1, c1 := time.Now(), cpuNow()
					f.run(int(en))
					w2, c2 := time.Now(), cpuNow()
					e, p := (c1 - c0).Nanoseconds(), (c2 - c1).Nanoseconds()
					execNs, execN, pullNs, pullN = execNs+e, execN+en, pullNs+p, pullN+en
					ratios = append(ratios, float64(e)/float64(max(p, 1)))
					wall = append(wall, float64(w1.Sub(w0))/float64(w2.Sub(w1)))
				}
				stop = true
				for _, h := range hs {
					h.Await(ctx)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(execNs)/float64(execN), "exec-ns/resume")
			b.ReportMetric(float64(pullNs)/float64(pullN), "pull-ns/resume")
			b.ReportMetric(median(ratios), "ratio")
			b.ReportMetric(median(wall), "wall-ratio")
		})
	}
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
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
