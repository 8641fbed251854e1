//go:build simrt_plain

package plaingo

import (
	"flag"
	"os"
	"simrthook"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// leaks turns the leak check off when false.
var (
	leaks = flag.Bool("simrt.leaks", true, "plain Go: fail a seed whose test returns while goroutines it started are blocked forever")
	sites = flag.Bool("simrt.sites", false, "plain Go: record where each task parks, for stall and leak reports (on by itself when -simrt.seed replays one seed)")
)

// recordSites reports whether the runs record where tasks park: asked
// for, or replaying one seed.
func recordSites() bool {
	if *sites {
		return true
	}
	f := flag.Lookup("simrt.seed")
	return (f != nil && f.Value.String() != "") || os.Getenv("SIMRT_SEED") != ""
}

// Enter runs the test function f, of which it is the first statement (the
// rewrite inserts `if plaingo.Enter(t, TestX) { return }`), as one
// simulation per seed, driven by simtest's -simrt.* flags (Explore): it
// returns true when it has done so, and false when it is called inside one
// of those simulations, where the test's body then runs.
//
// Each simulation runs f in its root task with the seed's subtest. When f
// returns, the run goes on until every goroutine f started has ended: a
// goroutine blocked forever then ends the run with a stall verdict that
// names it and where it waits (a leak; -simrt.leaks=false lets the run end
// with f instead, unwinding the goroutines left). One plain simulation
// runs at a time in a process, so Enter sets -simrt.parallel=1.
func Enter(t *testing.T, f func(*testing.T)) bool {
	if simrthook.Active() {
		return false
	}
	t.Helper()
	if fl := flag.Lookup("simrt.parallel"); fl != nil && fl.Value.String() != "1" {
		if err := flag.Set("simrt.parallel", "1"); err != nil {
			t.Fatalf("plaingo: %v", err)
		}
	}
	simtest.Explore(t, deterministic.Config{AdvanceWhenBlocked: true}, func(t *testing.T, ctx *deterministic.Context) {
		s := newSim(ctx)
		s.sites = recordSites()
		s.install()
		defer s.uninstall()
		f(t)
		if *leaks {
			s.waitGoroutines()
		}
	})
	return true
}

// Run runs f as the root of one plain-Go simulation configured by cfg and
// returns when the simulation has ended: f has returned and, as in Enter,
// every goroutine it started has ended. A failure (a panic, a stall
// verdict) panics from Run, as deterministic.Runner.Start does. Call it
// from a goroutine that is not a task of a simulation. Enter runs with
// cfg.AdvanceWhenBlocked (time passes only when every task blocks, so
// time.Sleep lasts exactly its duration); set it in cfg for the same clock.
func Run(cfg deterministic.Config, f func()) {
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		s := newSim(ctx)
		s.install()
		defer s.uninstall()
		f()
		s.waitGoroutines()
	})
}
