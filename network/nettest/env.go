package nettest

import (
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/suite"
)

// T is what a case reports through (see suite.T).
type T = suite.T

// NewNetwork returns the network under test for one case, built in the
// case's root task, whose context is ctx. A nil NewNetwork, or one that
// returns a simrt.Context, tests the runtime's own network: the case's
// tasks then use their own contexts (the returned one for the first, a
// context derived from the root's, for instance with another host), and a
// case can check what a task owns.
type NewNetwork func(t T, ctx simrt.Context) simrt.Network

// NewDialNetwork is a NewNetwork for RunDial: it also returns an address
// that a Dial of the network blocks on, until it times out or is cut short
// (for TCP, a listener whose accept queue is full; in a simulation, a host
// behind a clog).
type NewDialNetwork func(t T, ctx simrt.Context) (simrt.Network, netip.AddrPort)

// Run runs every case as a subtest, each as the root task of a fresh
// runtime from rt, on a fresh network from newNetwork. The network must
// keep the default maximum receive size, simrt.DefaultMaxRecvSize.
func Run(t *testing.T, rt suite.Runtime, newNetwork NewNetwork) {
	t.Helper()
	suite.Run(t, rt, bindCases(rt, newNetwork, cases))
}

// Test runs the cases of Run and returns their failures as one error (nil
// if every case passed), for runners other than go test.
func Test(rt suite.Runtime, newNetwork NewNetwork) error {
	return suite.Test(rt, bindCases(rt, newNetwork, cases))
}

// RunRecvMemory runs the cases about the bound on receive memory (the
// MaxRecvMemory of the tcp and simnet configurations) as subtests, like
// Run, on networks that newNetwork must build with MaxRecvMemory set to
// BudgetRecvMemory and every other limit at its default (in particular a
// 64 KiB read buffer, or BufferSize, per stream).
func RunRecvMemory(t *testing.T, rt suite.Runtime, newNetwork NewNetwork) {
	t.Helper()
	suite.Run(t, rt, bindCases(rt, newNetwork, recvMemoryCases))
}

// TestRecvMemory is RunRecvMemory's error-returning form.
func TestRecvMemory(rt suite.Runtime, newNetwork NewNetwork) error {
	return suite.Test(rt, bindCases(rt, newNetwork, recvMemoryCases))
}

// RunDial runs the cases that need a Dial that blocks as subtests, like
// Run, each on a network and a hanging address from newNetwork.
func RunDial(t *testing.T, rt suite.Runtime, newNetwork NewDialNetwork) {
	t.Helper()
	suite.Run(t, rt, bindDialCases(rt, newNetwork))
}

// TestDial is RunDial's error-returning form.
func TestDial(rt suite.Runtime, newNetwork NewDialNetwork) error {
	return suite.Test(rt, bindDialCases(rt, newNetwork))
}

func bindCases(rt suite.Runtime, newNetwork NewNetwork, list []struct {
	name  string
	check func(t T, env Env)
}) []suite.Case {
	var all []suite.Case
	for _, c := range list {
		all = append(all, suite.Case{Name: c.name, Check: func(t T) {
			runCase(t, rt, func(ctx simrt.Context) {
				var net simrt.Network = ctx
				if newNetwork != nil {
					net = newNetwork(t, ctx)
				}
				c.check(t, task(ctx, net))
			})
		}})
	}
	return all
}

func bindDialCases(rt suite.Runtime, newNetwork NewDialNetwork) []suite.Case {
	var all []suite.Case
	for _, c := range dialCases {
		all = append(all, suite.Case{Name: c.name, Check: func(t T) {
			runCase(t, rt, func(ctx simrt.Context) {
				net, hang := newNetwork(t, ctx)
				c.check(t, task(ctx, net), hang)
			})
		}})
	}
	return all
}

// runCase runs body as the root task of a fresh runtime from rt.
func runCase(t T, rt suite.Runtime, body func(ctx simrt.Context)) {
	rt.Run(t, suite.Options{Timeout: suite.DefaultTimeout}, body)
}

// Env is one task of the runtime a case runs on, with the network under
// test.
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

// task is the Env of the root task ctx with the network under test. When
// net is a context (the runtime's own network), the case's tasks use it
// and the contexts derived from it, and a case can also reach each task's
// own context as a network (see ownNetwork), for the rules about what a
// task owns.
func task(ctx simrt.Context, net simrt.Network) Env {
	if c, ok := net.(simrt.Context); ok {
		return ctxEnv{c, c, true}
	}
	return ctxEnv{ctx, net, false}
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
