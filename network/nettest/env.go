package nettest

import (
	"reflect"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// Env is one task of the runtime a case runs on.
type Env interface {
	// Runtime parks the task and runs timers (for simrt.Timeout).
	simrt.Caller
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

// Task adapts a simrt.Context and the network under test to Env. When net
// is ctx itself (the runtime's own network), a case can also reach each
// task's own context as a network (see ownNetwork), for the rules about
// what a task owns.
func Task(ctx simrt.Context, net simrt.Network) Env {
	own := reflect.TypeOf(ctx).Comparable() && any(ctx) == any(net)
	return ctxEnv{ctx, net, own}
}

type ctxEnv struct {
	simrt.Context
	net simrt.Network
	own bool // net is the runtime's: each task's context opens its own
}

// ownNetwork returns the network as env's task opens connections and
// listeners of its own, which its abort may act on: its context, if the
// network under test is the runtime's, else the network under test.
func ownNetwork(env Env) simrt.Network {
	if e, ok := env.(ctxEnv); ok && e.own {
		return e.Context
	}
	return env.Network()
}

func (e ctxEnv) Network() simrt.Network { return e.net }

func (e ctxEnv) Go(f func(Env)) func() {
	h := e.Spawn(f)
	return func() { h.Await(e.Context) }
}

func (e ctxEnv) Spawn(f func(Env)) *simrt.Handle[struct{}] {
	return simrt.Spawn(e.Context, func(ctx simrt.Context) struct{} {
		f(ctxEnv{ctx, e.net, e.own})
		return struct{}{}
	})
}
