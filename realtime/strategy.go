package realtime

import (
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt"
)

// pool bounds the helper goroutines every strategy of a runtime may run at
// once. A helper holds a slot while it works; the goroutine calling
// ForEach works too, without a slot, so work always progresses.
type pool struct{ slots chan struct{} }

func newPool(n int) *pool { return &pool{slots: make(chan struct{}, n)} }

// strategy is the production simrt.Strategy.
type strategy struct {
	p    int
	pool *pool
}

var _ simrt.Strategy = (*strategy)(nil)

// Parallelism implements simrt.Strategy.Parallelism.
func (s *strategy) Parallelism() int { return s.p }

// ForEach implements simrt.Strategy.ForEach: up to Parallelism goroutines
// (the caller and pool helpers) take indices in turn until all are done.
// If a call panics, the remaining indices are skipped and ForEach re-panics
// with that value once every helper has stopped.
func (s *strategy) ForEach(n int, f func(i int)) {
	if n <= 0 {
		return
	}
	w := &forEach{n: int64(n), f: f}
	var wg sync.WaitGroup
acquire:
	for range min(s.p, n) - 1 {
		select {
		case s.pool.slots <- struct{}{}:
			wg.Go(func() {
				defer func() { <-s.pool.slots }()
				w.work()
			})
		default:
			break acquire // the pool is busy: do the rest ourselves
		}
	}
	w.work()
	wg.Wait()
	if p := w.panicked.Load(); p != nil {
		panic(p.value)
	}
}

type forEach struct {
	n        int64
	next     atomic.Int64
	f        func(int)
	panicked atomic.Pointer[poolPanic]
}

type poolPanic struct{ value any }

func (w *forEach) work() {
	defer func() {
		if r := recover(); r != nil {
			w.panicked.CompareAndSwap(nil, &poolPanic{r})
			w.next.Store(w.n) // stop handing out work
		}
	}()
	for {
		i := w.next.Add(1) - 1
		if i >= w.n || w.panicked.Load() != nil {
			return
		}
		w.f(int(i))
	}
}
