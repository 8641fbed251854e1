package nettest

import (
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/rtapi"
)

// Env is one task of the runtime a case runs on.
type Env interface {
	// Runtime parks the task and runs timers (for simrt.Timeout).
	rtapi.Plumbing
	// Network returns the network under test; every task of a case sees
	// the same one.
	Network() simrt.Network
	// Sleep parks the task for d of runtime time.
	Sleep(d time.Duration)
	// Go runs f as a new task and returns a function that parks the
	// calling task until f has returned.
	Go(f func(env Env)) (wait func())
	// Spawn runs f as a new task and returns its handle, to abort it.
	Spawn(f func(env Env)) *simrt.Handle[struct{}]
}

// Harness runs one case: it builds a fresh runtime and network, runs body
// as a task of that runtime, and returns once body has returned.
type Harness func(t *testing.T, body func(env Env))

// Task adapts a simrt.Context and the network under test to Env.
func Task(ctx simrt.Context, net simrt.Network) Env { return ctxEnv{ctx, net} }

type ctxEnv struct {
	simrt.Context
	net simrt.Network
}

func (e ctxEnv) Network() simrt.Network { return e.net }

func (e ctxEnv) Go(f func(Env)) func() {
	h := e.Spawn(f)
	return func() { h.Await(e.Context) }
}

func (e ctxEnv) Spawn(f func(Env)) *simrt.Handle[struct{}] {
	return simrt.Spawn(e.Context, func(ctx simrt.Context) struct{} {
		f(ctxEnv{ctx, e.net})
		return struct{}{}
	})
}
