//simrt:allow-file the sweep engine starts simulations on native goroutines; it never runs inside one

package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/simrt/simrt/deterministic/pool"
)

// Config describes a sweep whose body returns an R for each seed.
type Config[R any] struct {
	// Seeds is the seed list, as Parse reads it. It must hold a seed.
	Seeds Set
	// Shard keeps every Shard.N-th seed of Seeds from position Shard.I;
	// the zero Shard keeps them all.
	Shard Shard
	// Workers is how many seeds run at once, on as many goroutines (at
	// least 1; runtime.GOMAXPROCS(0) is the usual choice).
	Workers int
	// KeepGoing runs every seed. Without it the sweep starts no seed past
	// the lowest failing one found so far, and reports nothing past the
	// lowest failing seed.
	KeepGoing bool
	// GCPercent, when above zero, sets the garbage collector's target
	// (debug.SetGCPercent) while the sweep runs, unless the GOGC
	// environment variable is set, and restores the previous value when
	// it ends. The setting is process-wide: it applies to every goroutine
	// of the process, and two sweeps running at once in one process would
	// undo each other's. Simulations are short-lived and allocate freely,
	// so a higher target saves collector time for some memory.
	GCPercent int
	// Context, when set, stops the sweep when it is done: no further seed
	// starts, and Report.Interrupted is set. Bodies that can be cut short
	// read it themselves.
	Context context.Context

	// OnResult, when set, receives every seed's result in seed order
	// (as the shard lists them), without gaps unless the sweep was
	// interrupted or a batch body left seeds out.
	OnResult func(Result[R])
	// OnFailure, when set, receives the failing seeds' results in seed
	// order, as OnResult does.
	OnFailure func(Result[R])
	// OnProgress, when set, hears of each seed as soon as it ends, in the
	// order they end; for progress bars, not for reports.
	//
	// The callbacks run on the sweep's goroutines, one at a time.
	OnProgress func(Progress)
}

// Result is what the body returned for one seed.
type Result[R any] struct {
	Seed  uint64
	Index uint64 // position of the seed in the shard, from 0
	Value R
	Err   error // nil: the seed passed
}

// Progress is the state of a sweep after a seed ended.
type Progress struct {
	Seed   uint64 // the seed that ended
	Err    error  // its failure, nil if it passed
	Done   uint64 // seeds ended so far
	Failed uint64 // of them, failed
	Total  uint64 // seeds selected
}

// Report is what a sweep did, as OnResult and OnFailure saw it: the same
// for any number of workers, unless the sweep was interrupted.
type Report[R any] struct {
	Selected    uint64      // seeds in the shard
	Ran         uint64      // seeds reported, in seed order
	Failures    []Result[R] // failing seeds, in seed order
	Stopped     bool        // a failure stopped the sweep (no KeepGoing)
	Interrupted bool        // Config.Context was done before every seed ran
}

// FailingSeeds returns the failing seeds as a Set ("3,7,10..12").
func (r *Report[R]) FailingSeeds() Set {
	seeds := make([]uint64, len(r.Failures))
	for i, f := range r.Failures {
		seeds[i] = f.Seed
	}
	return Compact(seeds)
}

// Worker is one of the sweep's goroutines, handed to every body it runs.
type Worker struct {
	// ID numbers the workers from 0.
	ID int
	// Coroutines is the worker's pool of idle simulator coroutines: give
	// it to each simulation the body runs (deterministic.Config.Hooks.Coroutines)
	// and they reuse each other's goroutines. Simulations on one worker
	// run one after another, as a pool requires.
	Coroutines *pool.Coroutines
}

// PanicError is the failure of a seed whose body panicked.
type PanicError struct {
	Value any    // what the body panicked with
	Stack []byte // the body's stack when it panicked
}

// Error implements error.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Errors of a sweep that cannot start.
var (
	ErrNoSeeds  = errors.New("sweep: no seed selected")
	ErrBadShard = errors.New("sweep: bad shard")
	ErrWorkers  = errors.New("sweep: at least 1 worker")
	ErrNilBody  = errors.New("sweep: nil body")
	ErrGC       = errors.New("sweep: GCPercent below 0")
)

// Run runs body once per selected seed on cfg.Workers goroutines and
// returns the report. The error is nil unless cfg cannot be swept (no
// seed, a shard i/n with i >= n, fewer than 1 worker, a nil body); the
// failures of seeds are in the report. A body that panics fails its seed
// with a *PanicError.
func Run[R any](cfg Config[R], body func(w *Worker, seed uint64) (R, error)) (*Report[R], error) {
	if body == nil {
		return nil, ErrNilBody
	}
	return RunBatches(cfg, 1, func(w *Worker, seeds []uint64, report func(uint64, R, error)) {
		v, err := body(w, seeds[0])
		report(seeds[0], v, err)
	})
}

// RunBatches is Run for a body that runs several seeds at a time, such as
// a test process per batch of seeds: body receives up to size consecutive
// seeds of the shard and calls report once for each seed it ran, from
// its own goroutine before it returns, in any order. Seeds it does not
// report did not run; reporting a seed twice, or one not in the batch,
// panics in body. The sweep reuses the seeds slice once body returns.
// A body that panics fails the first seed of its batch it had not
// reported; RunBatches then hands the seeds after it to body again.
func RunBatches[R any](cfg Config[R], size int, body func(w *Worker, seeds []uint64, report func(seed uint64, v R, err error))) (*Report[R], error) {
	e, err := newEngine(cfg, size, body)
	if err != nil {
		return nil, err
	}
	if cfg.GCPercent > 0 && os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(cfg.GCPercent))
	}
	e.run()
	return e.rep, nil
}

// check returns why cfg cannot be swept, or nil.
func (cfg *Config[R]) check() error {
	sh := cfg.Shard.whole()
	switch {
	case sh.N == 0 || sh.I >= sh.N:
		return fmt.Errorf("%w %d/%d: want i/n with 0 <= i < n", ErrBadShard, cfg.Shard.I, cfg.Shard.N)
	case cfg.Workers < 1:
		return fmt.Errorf("%w, not %d", ErrWorkers, cfg.Workers)
	case cfg.GCPercent < 0:
		return fmt.Errorf("%w (%d): a sweep with the collector off runs out of memory", ErrGC, cfg.GCPercent)
	}
	if err := cfg.Seeds.check(); err != nil {
		return err
	}
	if sh.Len(cfg.Seeds.Len()) == 0 {
		return fmt.Errorf("%w: shard %v of seeds %v is empty", ErrNoSeeds, sh, cfg.Seeds)
	}
	return nil
}

// check returns why s is not a seed list Run can sweep, or nil.
func (s Set) check() error {
	if len(s) == 0 {
		return fmt.Errorf("%w: the seed list is empty", ErrNoSeeds)
	}
	var n uint64
	for _, r := range s {
		if r.Hi < r.Lo {
			return fmt.Errorf("%w: range %d..%d is empty", ErrNoSeeds, r.Lo, r.Hi)
		}
		k := r.Hi - r.Lo + 1
		if k == 0 || n+k < n {
			return fmt.Errorf("sweep: seeds %v: more than 2^64-1 seeds", s)
		}
		n += k
	}
	return nil
}

// engine is one sweep in progress.
type engine[R any] struct {
	cfg   Config[R]
	ctx   context.Context
	shard Shard
	total uint64 // seeds in the shard
	size  uint64 // seeds per batch
	body  func(*Worker, []uint64, func(uint64, R, error))

	next  atomic.Uint64 // the next batch to start
	limit atomic.Uint64 // no batch starts at or past this position

	mu      sync.Mutex
	pending map[uint64]Result[R] // ended, waiting for the seeds before them
	deliver uint64               // the next position OnResult hears of
	done    uint64
	failed  uint64
	rep     *Report[R]
}

func newEngine[R any](cfg Config[R], size int, body func(*Worker, []uint64, func(uint64, R, error))) (*engine[R], error) {
	if body == nil {
		return nil, ErrNilBody
	}
	if size < 1 {
		return nil, fmt.Errorf("sweep: batches of %d seeds: at least 1", size)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	sh := cfg.Shard.whole()
	total := sh.Len(cfg.Seeds.Len())
	e := &engine[R]{cfg: cfg, ctx: ctx, shard: sh, total: total, size: uint64(size), body: body,
		pending: map[uint64]Result[R]{}, rep: &Report[R]{Selected: total}}
	e.limit.Store(total)
	return e, nil
}

// run runs every batch and delivers what is left.
func (e *engine[R]) run() {
	batches := (e.total-1)/e.size + 1
	workers := int(min(uint64(e.cfg.Workers), batches))
	var wg sync.WaitGroup
	for id := range workers {
		wg.Go(func() { e.work(id) })
	}
	wg.Wait()
	e.rep.Interrupted = e.ctx.Err() != nil && e.deliver < e.limit.Load()
	e.flush()
}

// work is one worker: it takes batches until none is left.
func (e *engine[R]) work(id int) {
	w := &Worker{ID: id, Coroutines: &pool.Coroutines{}}
	defer func() { w.Coroutines.Close() }()
	seeds := make([]uint64, e.size)
	reported := make([]bool, e.size)
	for e.ctx.Err() == nil {
		start := (e.next.Add(1) - 1) * e.size
		if start >= e.limit.Load() {
			return
		}
		k := min(e.size, e.total-start)
		for i := range k {
			seeds[i] = e.cfg.Seeds.At(e.shard.I + (start+i)*e.shard.N)
			reported[i] = false
		}
		e.batch(w, start, seeds[:k], reported[:k])
	}
}

// batch runs body over seeds, which start at position start, until it
// returns without a panic; reported[i] records that seeds[i] was.
func (e *engine[R]) batch(w *Worker, start uint64, seeds []uint64, reported []bool) {
	report := func(seed uint64, v R, err error) {
		for i, s := range seeds {
			if s == seed && !reported[i] {
				reported[i] = true
				e.record(Result[R]{Seed: seed, Index: start + uint64(i), Value: v, Err: err})
				return
			}
		}
		panic(fmt.Sprintf("sweep: seed %d reported twice or not in its batch", seed))
	}
	for from := 0; from < len(seeds); {
		p := e.call(w, seeds[from:], report)
		if p == nil {
			return
		}
		// A panic fails the first seed not reported; the pool may still
		// be marked in use by the simulation that panicked.
		w.Coroutines.Close()
		w.Coroutines = &pool.Coroutines{}
		for from < len(seeds) && reported[from] {
			from++
		}
		if from == len(seeds) {
			return
		}
		var zero R
		reported[from] = true
		e.record(Result[R]{Seed: seeds[from], Index: start + uint64(from), Value: zero, Err: p})
		from++
	}
}

// call runs body and returns its panic, if any.
func (e *engine[R]) call(w *Worker, seeds []uint64, report func(uint64, R, error)) (p *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			p = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	e.body(w, seeds, report)
	return nil
}

// record takes one seed's result: it lowers the limit on a failure
// unless the sweep keeps going, tells OnProgress, and delivers every
// result now in order.
func (e *engine[R]) record(r Result[R]) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done++
	if r.Err != nil {
		e.failed++
		if !e.cfg.KeepGoing {
			e.lower(r.Index + 1)
		}
	}
	if e.cfg.OnProgress != nil {
		e.cfg.OnProgress(Progress{Seed: r.Seed, Err: r.Err, Done: e.done, Failed: e.failed, Total: e.total})
	}
	e.pending[r.Index] = r
	for {
		next, ok := e.pending[e.deliver]
		if !ok || e.deliver >= e.limit.Load() {
			return
		}
		delete(e.pending, e.deliver)
		e.deliver++
		e.emit(next)
	}
}

// lower lowers the limit to at most n.
func (e *engine[R]) lower(n uint64) {
	for {
		cur := e.limit.Load()
		if n >= cur || e.limit.CompareAndSwap(cur, n) {
			return
		}
	}
}

// emit hands one result to the callbacks and the report; e.mu is held.
func (e *engine[R]) emit(r Result[R]) {
	e.rep.Ran++
	if e.cfg.OnResult != nil {
		e.cfg.OnResult(r)
	}
	if r.Err == nil {
		return
	}
	e.rep.Failures = append(e.rep.Failures, r)
	if !e.cfg.KeepGoing {
		e.rep.Stopped = true
	}
	if e.cfg.OnFailure != nil {
		e.cfg.OnFailure(r)
	}
}

// flush delivers, in order, the results left behind a seed that never
// ended (an interrupted sweep, a batch that left seeds out).
func (e *engine[R]) flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	left := make([]uint64, 0, len(e.pending))
	for pos := range e.pending {
		left = append(left, pos)
	}
	slices.Sort(left)
	for _, pos := range left {
		if pos < e.limit.Load() {
			e.emit(e.pending[pos])
		}
	}
	clear(e.pending)
}
