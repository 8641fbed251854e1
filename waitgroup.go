package simrt

import (
	"sync/atomic"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// WaitGroup waits for a collection of tasks to finish, like
// sync.WaitGroup, but Wait parks the task instead of blocking the thread,
// so it is safe inside the simulator. The zero value is ready to use.
//
// As with sync.WaitGroup, a Wait returns once the counter has reached zero
// after the Wait began, even if Add raises it again before the waiter runs;
// reusing a WaitGroup for a new round is safe once every Wait of the
// previous round has returned.
type WaitGroup struct {
	mu  core.Lock
	n   int
	gen uint64 // counts the times the counter fell to zero with waiters
	q   core.WaitQueue
}

// Add adds delta, which may be negative, to the counter. When the counter
// reaches zero every task parked in Wait is released. It panics if the
// counter goes negative, as sync.WaitGroup does.
func (wg *WaitGroup) Add(delta int) {
	var buf [4]*core.Task
	wg.mu.Lock()
	n := wg.n + delta
	if n < 0 {
		wg.mu.Unlock()
		panic("simrt.WaitGroup: negative counter")
	}
	wg.n = n
	var woken []*core.Task
	if n == 0 && !wg.q.Empty() {
		wg.gen++
		woken = wg.q.TakeAll(buf[:0])
	}
	wg.mu.Unlock()
	for _, t := range woken {
		t.Unpark()
	}
	wg.mu.Point()
}

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.Add(-1) }

// Wait parks until the counter is zero. It panics at the call if ctx is nil.
func (wg *WaitGroup) Wait(ctx Caller) {
	mustContext(ctx == nil, "WaitGroup.Wait")
	wg.mu.Enter(ctx.CurrentTask())
	wg.mu.Lock()
	if wg.n != 0 {
		gen := wg.gen
		waitUntilOn(ctx, &wg.mu, &wg.q, (*waitGroupWait)(wg), nil, func() bool { return wg.n == 0 || wg.gen != gen })
	}
	wg.mu.Unlock()
}

// Go spawns f as a new task below ctx and counts it in the group: Add(1)
// now, Done when f has returned or unwound (after its deferred calls), or
// at once if the task never starts (ctx aborted). It is the form of
//
//	wg.Add(1)
//	go func() { defer wg.Done(); f() }()
//
// that runs in both runtimes. It panics at the call, counting nothing, if
// ctx or f is nil.
func (wg *WaitGroup) Go(ctx Context, f func(ctx Context)) {
	mustContext(ctx == nil, "WaitGroup.Go")
	mustFunc(f == nil, "WaitGroup.Go")
	wg.Add(1)
	// 0: not started; 1: f runs, its deferred Done counts; 2: counted
	// without running (the task was aborted before it started).
	var state atomic.Uint32
	ctx.SpawnTask(rtapi.TaskFuncs{
		RunFunc: func(ctx rtapi.Plumbing) {
			if !state.CompareAndSwap(0, 1) {
				return
			}
			defer wg.Done()
			f(ctx.(Context))
		},
		DoneFunc: func(error) {
			if state.CompareAndSwap(0, 2) {
				wg.Done()
			}
		},
	})
}

// OnWait is a Select case that completes once the counter is zero and then
// calls f, which may be nil.
func (wg *WaitGroup) OnWait(f func()) Case {
	return &primCase[waitGroupGen, func()]{p: wg, f: f}
}

// waitGroupGen is what a case on a WaitGroup remembers: the generation of
// the counter it first saw, once armed.
type waitGroupGen struct {
	gen   uint64
	armed bool
}

func (wg *WaitGroup) armCase(g *waitGroupGen, w *core.Waiter, _ *core.Selection) bool {
	return armNotified(&wg.mu, &wg.q, w, func() bool {
		if !g.armed {
			g.armed, g.gen = true, wg.gen
		}
		return wg.n == 0 || wg.gen != g.gen
	})
}

func (wg *WaitGroup) disarmCase(_ *waitGroupGen, w *core.Waiter) bool {
	return disarmNotified(&wg.mu, &wg.q, w, nil)
}

func (wg *WaitGroup) fireCase(_ *waitGroupGen, f func()) {
	if f != nil {
		f()
	}
}

func (wg *WaitGroup) describeCase(*waitGroupGen) string { return (*waitGroupWait)(wg).BlockedOn() }
