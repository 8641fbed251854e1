package simrt_test

import (
	"fmt"
	"sync"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/internal/core"
)

// This file runs a program on a runtime and records what every op did,
// with logical stamps: one counter, taken under the recorder's lock at the
// start and at the end of each op. An op whose end stamp is below another's
// start stamp ended before the other began, in real time on either
// runtime; that is the only order the checks rely on.

// opResult is what one op did.
type opResult struct {
	state      uint8 // 0 not started, 1 running, 2 ended
	start, end uint64
	v          int
	ok         bool
	err        error
	chosen     int         // the Select case taken
	panicked   string      // the panic a misuse or Once op recovered
	ranF       bool        // Once: this Do ran f
	times      []time.Time // Ticker: the ticks; Sleep: before and after
	inner      *opResult   // Timeout: its op's result
}

// lockKind names what a task holds inside a critical section.
type lockKind uint8

const (
	holdMutex lockKind = iota
	holdRead
	holdWrite
)

// recorder keeps every op's result and the few facts the model needs while
// a run goes on (who holds which lock, how often a Once ran f), all under
// one lock: tasks of the production runtime write it concurrently, and its
// root reads it to tell whether the run has stalled.
type recorder struct {
	mu                          sync.Mutex
	clock                       uint64
	res                         [][]opResult
	cur                         []int  // the op each task is at (or has reached: len when finished)
	inOp                        []bool // the task is inside op cur
	holding                     []bool // the task is inside a critical section
	finished                    []bool
	mutexHeld, readers, writers int
	onceRuns                    int
	onceRunning                 bool
	onceEnded                   uint64 // the stamp at which f ended, 0 before
	drained                     [][]int
	drainStamp                  uint64
	violations                  []string
	// frozen is set when a production run has been judged: the tasks
	// still running then record nothing more.
	frozen bool
}

func newRecorder(p *program) *recorder {
	r := &recorder{res: make([][]opResult, len(p.tasks)), cur: make([]int, len(p.tasks)),
		inOp: make([]bool, len(p.tasks)), holding: make([]bool, len(p.tasks)),
		finished: make([]bool, len(p.tasks)), drained: make([][]int, len(p.chans))}
	for i, ops := range p.tasks {
		r.res[i] = make([]opResult, len(ops))
	}
	return r
}

func (r *recorder) violate(format string, args ...any) {
	r.violations = append(r.violations, fmt.Sprintf(format, args...))
}

func (r *recorder) begin(task, i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.clock++
	r.cur[task], r.inOp[task] = i, true
	r.res[task][i] = opResult{state: 1, start: r.clock}
}

func (r *recorder) end(task, i int, out opResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.clock++
	out.state, out.start, out.end = 2, r.res[task][i].start, r.clock
	r.res[task][i] = out
	r.cur[task], r.inOp[task] = i+1, false
}

func (r *recorder) finish(task int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.finished[task] = true
}

// hold records that task enters (delta 1) or leaves (-1) a critical
// section of kind, and checks the exclusion the lock promises.
func (r *recorder) hold(task int, kind lockKind, delta int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.clock++
	r.holding[task] = delta > 0
	switch kind {
	case holdMutex:
		r.mutexHeld += delta
		if r.mutexHeld > 1 {
			r.violate("task %d: Mutex held by %d tasks at once", task, r.mutexHeld)
		}
	case holdRead:
		r.readers += delta
		if delta > 0 && r.writers > 0 {
			r.violate("task %d: RWMutex read-locked while a writer holds it", task)
		}
	case holdWrite:
		r.writers += delta
		if delta > 0 && (r.writers > 1 || r.readers > 0) {
			r.violate("task %d: RWMutex write-locked while held (%d writers, %d readers)", task, r.writers, r.readers)
		}
	}
}

func (r *recorder) onceBegin(task int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.onceRuns++
	r.onceRunning = true
	if r.onceRuns > 1 {
		r.violate("task %d: Once ran f a %dth time", task, r.onceRuns)
	}
}

func (r *recorder) onceEnd() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen {
		return
	}
	r.clock++
	r.onceRunning, r.onceEnded = false, r.clock
}

// objects are a program's primitives on one runtime.
type objects struct {
	chans   []*simrt.Chan[int]
	mutex   simrt.Mutex
	rw      simrt.RWMutex
	wg      simrt.WaitGroup
	signal  *simrt.Signal
	oneshot *simrt.Oneshot[int]
	once    simrt.Once
	rec     *recorder
	p       *program
}

func newObjects(p *program, rec *recorder) *objects {
	x := &objects{signal: simrt.NewSignal(), oneshot: simrt.NewOneshot[int](), rec: rec, p: p}
	for _, c := range p.chans {
		if c.unbounded {
			x.chans = append(x.chans, simrt.NewUnboundedChan[int]())
		} else {
			x.chans = append(x.chans, simrt.NewChan[int](c.capacity))
		}
	}
	for _, n := range p.wgCount {
		x.wg.Add(n)
	}
	return x
}

// task runs task ti's ops in order.
func (x *objects) task(ctx simrt.Context, ti int) {
	for i := range x.p.tasks[ti] {
		x.rec.begin(ti, i)
		var out opResult
		x.do(ctx, ti, &x.p.tasks[ti][i], &out)
		x.rec.end(ti, i, out)
	}
	x.rec.finish(ti)
}

// do runs op o of task ti, storing what it did in out.
func (x *objects) do(ctx simrt.Context, ti int, o *op, out *opResult) {
	switch o.kind {
	case opSend:
		out.err = x.chans[o.obj].Send(ctx, o.val)
	case opRecv:
		out.v, out.ok = x.chans[o.obj].Recv(ctx)
	case opTrySend:
		for k := 0; ; k++ {
			if out.ok = x.chans[o.obj].TrySend(o.val); out.ok || !o.retry || k == maxRetries {
				break
			}
			ctx.Sleep(time.Millisecond)
		}
	case opTryRecv:
		for k := 0; ; k++ {
			if out.v, out.ok = x.chans[o.obj].TryRecv(); out.ok || !o.retry || k == maxRetries {
				break
			}
			ctx.Sleep(time.Millisecond)
		}
	case opClose:
		x.chans[o.obj].Close()
	case opSelect:
		for k := 0; ; k++ {
			*out = opResult{}
			if x.selectOp(ctx, ti, o, out); out.chosen == 0 || !o.retry || k == maxRetries {
				break
			}
		}
	case opLock:
		x.mutex.Lock(ctx)
		x.critical(ctx, ti, holdMutex, x.mutex.Unlock)
	case opTryLock:
		if out.ok = x.mutex.TryLock(); out.ok {
			x.critical(ctx, ti, holdMutex, x.mutex.Unlock)
		}
	case opRLock:
		x.rw.RLock(ctx)
		x.critical(ctx, ti, holdRead, x.rw.RUnlock)
	case opWLock:
		x.rw.Lock(ctx)
		x.critical(ctx, ti, holdWrite, x.rw.Unlock)
	case opDone:
		x.wg.Done()
	case opWait:
		x.wg.Wait(ctx)
	case opFire:
		out.ok = x.signal.Fire(o.val)
	case opSigWait:
		out.v = x.signal.Wait(ctx)
	case opOSSend:
		out.ok = x.oneshot.Send(o.val)
	case opOSClose:
		x.oneshot.Close()
	case opOSRecv:
		out.v, out.err = x.oneshot.Recv(ctx)
	case opOnce:
		x.onceOp(ctx, ti, o, out)
	case opTicker:
		start := ctx.Now()
		tk := simrt.NewTicker(ctx, o.d)
		out.times = append(out.times, start)
		for range o.n {
			out.times = append(out.times, tk.Recv(ctx))
		}
		tk.Stop()
	case opSleep:
		before := ctx.Now()
		ctx.Sleep(o.d)
		out.times = []time.Time{before, ctx.Now()}
	case opYield:
		simrt.Reschedule(ctx)
	case opTimeout:
		for k := 0; ; k++ {
			out.inner = new(opResult)
			out.err = simrt.Timeout(ctx, o.d, func() error {
				x.do(ctx, ti, o.inner, out.inner)
				return nil
			})
			if out.err == nil || !o.retry || k == maxRetries {
				break
			}
		}
	case opMisuse:
		out.panicked = misuse(ctx, o.n)
	default:
		panic(fmt.Sprintf("differential: unknown op %d", o.kind))
	}
}

// critical is the inside of a critical section of kind, which the task
// has just entered: one yield, then unlock. A Timeout unwinding it still
// leaves the section (an abort, which ends the run, leaves the recorder
// alone).
func (x *objects) critical(ctx simrt.Context, ti int, kind lockKind, unlock func()) {
	x.rec.hold(ti, kind, 1)
	defer func() {
		if v := recover(); v != nil {
			if !core.IsAbort(v) {
				x.rec.hold(ti, kind, -1)
			}
			unlock()
			panic(v)
		}
	}()
	simrt.Reschedule(ctx)
	x.rec.hold(ti, kind, -1)
	unlock()
}

func (x *objects) selectOp(ctx simrt.Context, ti int, o *op, out *opResult) {
	cases := make([]simrt.Case, len(o.cases))
	var tickers []*simrt.Ticker
	for j, sc := range o.cases {
		switch sc.kind {
		case caseRecv:
			cases[j] = x.chans[sc.obj].OnRecv(func(v int, ok bool) { out.v, out.ok = v, ok })
		case caseSend:
			cases[j] = x.chans[sc.obj].OnSend(sc.val, func(err error) { out.err = err })
		case caseFire:
			cases[j] = x.signal.OnFire(func(v int) { out.v = v })
		case caseOSRecv:
			cases[j] = x.oneshot.OnRecv(func(v int, err error) { out.v, out.err = v, err })
		case caseWait:
			cases[j] = x.wg.OnWait(nil)
		case caseLock:
			cases[j] = x.mutex.OnLock(nil)
		case caseAfter:
			cases[j] = simrt.After(ctx, sc.d, nil)
		case caseTick:
			tk := simrt.NewTicker(ctx, sc.d)
			tickers = append(tickers, tk)
			cases[j] = tk.OnTick(func(at time.Time) { out.times = append(out.times, at) })
		}
	}
	out.chosen = simrt.Select(ctx, cases...)
	for _, tk := range tickers {
		tk.Stop()
	}
	if o.cases[out.chosen].kind == caseLock {
		x.critical(ctx, ti, holdMutex, x.mutex.Unlock)
	}
}

func (x *objects) onceOp(ctx simrt.Context, ti int, o *op, out *opResult) {
	defer func() {
		if v := recover(); v != nil {
			if s, ok := v.(string); ok && s == oncePanic {
				out.panicked = s
				return
			}
			panic(v)
		}
	}()
	x.once.Do(ctx, func() {
		x.rec.onceBegin(ti)
		out.ranF = true
		x.rec.onceEnd()
		if o.n == 1 {
			panic(oncePanic)
		}
	})
}

// misuse makes misuse call n on objects of its own and returns the panic
// message, "" if it did not panic.
func misuse(ctx simrt.Context, n int) (panicked string) {
	defer func() {
		if v := recover(); v != nil {
			s, ok := v.(string)
			if !ok {
				panic(v) // an abort, or not a misuse panic: let it go on
			}
			panicked = s
		}
	}()
	switch n {
	case 0:
		var m simrt.Mutex
		m.Unlock()
	case 1:
		var m simrt.RWMutex
		m.RUnlock()
	case 2:
		var m simrt.RWMutex
		m.Unlock()
	case 3:
		var wg simrt.WaitGroup
		wg.Add(-1)
	case 4:
		simrt.NewChan[int](-1)
	case 5:
		simrt.NewTicker(ctx, 0)
	}
	return ""
}

// drain takes what is left in the buffered channels once every task has
// finished, in order.
func (x *objects) drain() {
	for ci, c := range x.chans {
		if !x.p.chans[ci].unbounded && x.p.chans[ci].capacity == 0 {
			continue
		}
		for v, ok := c.TryRecv(); ok; v, ok = c.TryRecv() {
			x.rec.drained[ci] = append(x.rec.drained[ci], v)
		}
	}
	x.rec.mu.Lock()
	x.rec.clock++
	x.rec.drainStamp = x.rec.clock
	x.rec.mu.Unlock()
}
