// Package gotask is a minimal goroutine runtime for testing production code
// that parks through simrt primitives (the tcp network, the net.Conn
// adapters) before, and independently of, the production runtime: each
// task is a goroutine that parks by blocking on a permit channel, timers
// are wall-clock timers, and CurrentTask finds the calling goroutine's
// task. It is slow and meant for tests only.
package gotask

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/rtapi"
)

// Runtime runs tasks on goroutines. The zero value is not usable; use New.
type Runtime struct {
	mu    sync.Mutex
	tasks map[uint64]*core.Task // by goroutine id
}

// New returns a runtime with no tasks.
func New() *Runtime { return &Runtime{tasks: make(map[uint64]*core.Task)} }

type backend struct {
	t      *core.Task
	permit chan struct{}
}

func (b *backend) Park() {
	b.t.BeforePark()
	<-b.permit
	b.t.AfterPark()
}

func (b *backend) Unpark() {
	select {
	case b.permit <- struct{}{}:
	default:
	}
}

func (b *backend) Yield() {
	b.t.BeforePark()
	runtime.Gosched()
	b.t.AfterPark()
}

// Go runs f as a new task on its own goroutine and returns a function that
// blocks until f has returned or unwound. An abort unwinds f quietly; any
// other panic is re-raised by wait.
func (r *Runtime) Go(f func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		b := &backend{permit: make(chan struct{}, 1)}
		t := core.NewTask(b)
		b.t = t
		id := goid()
		r.mu.Lock()
		r.tasks[id] = t
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			delete(r.tasks, id)
			r.mu.Unlock()
			t.RunExitHooks()
			v := recover()
			if core.IsAbort(v) {
				v = nil
			}
			done <- v
		}()
		f()
	}()
	return func() {
		if v := <-done; v != nil {
			panic(v)
		}
	}
}

// Run runs f as a task and waits for it.
func (r *Runtime) Run(f func()) { r.Go(f)() }

// CurrentTask implements rtapi.Plumbing. It panics when the calling
// goroutine is not a task of r.
func (r *Runtime) CurrentTask() *core.Task {
	r.mu.Lock()
	t := r.tasks[goid()]
	r.mu.Unlock()
	if t == nil {
		panic("gotask: blocking call made outside a task")
	}
	return t
}

// SpawnTask implements rtapi.Plumbing for the primitives' sake only: r is
// not a simrt.Context, so it cannot run a spawned task, and panics.
func (r *Runtime) SpawnTask(rtapi.Task) rtapi.Aborter {
	panic("gotask: SpawnTask on a Runtime that is not a simrt.Context; use Go")
}

// AfterFunc implements rtapi.Plumbing with a wall-clock timer.
func (r *Runtime) AfterFunc(d time.Duration, f func()) rtapi.Timer {
	return time.AfterFunc(d, f)
}

// Now returns the wall-clock time.
func (r *Runtime) Now() time.Time { return time.Now() }

// goid returns the calling goroutine's id, read from its stack header
// ("goroutine 42 [running]:").
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("gotask: cannot read goroutine id")
	}
	return id
}
