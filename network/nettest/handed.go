package nettest

import (
	"net/netip"

	"github.com/simrt/simrt"
)

// The cases in this file pin whose call an operation is when what it goes
// through was handed from one task to another: the caller's, the same on
// both runtimes. The simulator knows no owners, so a task's abort or
// simrt.Timeout cuts exactly the call that task is blocked in, whatever
// context or connection the call goes through; production must not let
// the task that opened the context or the connection cut it instead.

// A Dial made by one task through another task's context (a context
// handed over) is the caller's: an abort of the context's task, while the
// Dial blocks, does not cut it; the caller's own simrt.Timeout does, and
// so does the caller's abort.
func dialThroughAnotherContextIsTheCallers(t T, env Env, hang netip.AddrPort) {
	handed := simrt.NewOneshot[simrt.Network]()
	ownerEnded := simrt.NewOneshot[struct{}]()
	owner := env.Spawn(func(env Env) {
		defer ownerEnded.Send(struct{}{})
		handed.Send(ownNetwork(env))
		holdForever(env, owned{})
	})
	n, err := handed.Recv(env)
	if err != nil {
		return
	}
	timedOut := simrt.NewOneshot[error]()
	// The caller's Timeout outlasts the settle after which the owner is
	// aborted: a Dial cut by that abort returns ErrClosed before it.
	h, ended := blocked(env, func(env Env) {
		timedOut.Send(simrt.Timeout(env, 4*settle, func() error { return discard(n.Dial(hang)) }))
		discard(n.Dial(hang)) // blocks until the caller is aborted
	})
	if !abortBlocked(t, env, "task whose context another task dials through", owner, ownerEnded) {
		return
	}
	var dialErr error
	if terr := simrt.Timeout(env, guard, func() error { dialErr, _ = timedOut.Recv(env); return nil }); terr != nil {
		t.Errorf("a Dial through another task's context under a Timeout still blocks after %v", guard)
	} else {
		wantErr(t, dialErr, simrt.ErrTimeout, "Dial through an aborted task's context, under the caller's Timeout")
	}
	abortBlocked(t, env, "caller of a Dial through another task's context", h, ended)
}
