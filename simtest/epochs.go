package simtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/sweep"
)

// EpochFunc is the root of one epoch of a multi-epoch seed (see
// RunEpochs). epoch counts from 0. The epoch ends when it returns: every
// task still alive is aborted and the storage of the runtime and of every
// node loses what it had not synced, as in a power loss of the whole
// cluster. The next epoch starts on what the disks kept.
type EpochFunc func(t *testing.T, ctx *deterministic.Context, epoch int)

// RunEpochs runs one seed as epochs simulations in a row, each resumed
// from the checkpoint the one before left (deterministic.StartAndRecover
// and FromCheckpoint): the simulated time, the generator, the auditor, the
// durable storage (the runtime's and, by name, every node's) and the DNS
// table carry over; tasks, connections and unsynced writes do not. So a
// sweep with whole-cluster crashes needs no seed loop of its own: recovery
// code runs in epochs 1 and later, and the last epoch checks the result.
//
// The seed is cfg.Seed, or -simrt.seed (SIMRT_SEED) to replay a failure.
// A failure in any epoch (a panic, a stall, a timeout, t.Error or t.Fatal
// inside the simulation) stops the seed and logs the report Run gives,
// its first line naming the epoch. RunEpochs fails the test for epochs < 1.
// Call it from the test's goroutine.
func RunEpochs(t *testing.T, cfg deterministic.Config, epochs int, root EpochFunc) {
	t.Helper()
	if epochs < 1 {
		t.Fatalf("simtest.RunEpochs: %d epochs (want at least 1)", epochs)
	}
	if root == nil {
		t.Fatal("simtest.RunEpochs: nil root")
	}
	mustStart(t, "RunEpochs", cfg, false)
	st := mustSettings(t)
	if st.hasSeed {
		cfg.Seed = st.seed
	}
	if st.events == autoEvents {
		st.events = reportEvents
	}
	runEpochsSeed(t, t.Name(), cfg, st, epochs, root)
}

// ExploreEpochs is RunEpochs for each seed of a sweep, as Explore selects
// them (-simrt.seeds, -simrt.shard, -simrt.seed; -simrt.keepgoing): each
// seed is a subtest "seed=N" that runs its epochs. The seeds run one after
// another. It stops at the first failing seed unless -simrt.keepgoing is
// set, and names the lowest failing seed and its replay command.
func ExploreEpochs(t *testing.T, cfg deterministic.Config, epochs int, root EpochFunc) {
	t.Helper()
	if epochs < 1 || root == nil {
		t.Fatalf("simtest.ExploreEpochs: %d epochs, root %v (want at least 1 epoch and a root)", epochs, root != nil)
	}
	mustStart(t, "ExploreEpochs", cfg, false)
	st := mustSettings(t)
	set, shard := exploreSeeds(st)
	if st.events == autoEvents {
		st.events = reportEvents
		if shard.Len(set.Len()) > 1 {
			st.events = 0
		}
	}
	rep, _ := sweepSubtests(t, st, 1, 0, func(t *testing.T, _ *sweep.Worker, seed uint64) {
		c := cfg
		c.Seed = seed
		runEpochsSeed(t, t.Name()[:strings.LastIndexByte(t.Name(), '/')], c, st, epochs, root)
	})
	if rep != nil && len(rep.Failures) > 0 {
		failed := failingSeeds(rep)
		t.Errorf("simrt: %d seeds failed: %s\nfirst failing seed %d; replay: %s",
			len(failed), seedList(failed), failed[0], replayCommand(t.Name(), failed[0]))
	}
}

// runEpochsSeed runs one seed's epochs and reports a failure on t; name
// is the test to replay.
func runEpochsSeed(t *testing.T, name string, cfg deterministic.Config, st settings, epochs int, root EpochFunc) {
	t.Helper()
	if cfg.Hooks.EventLog == 0 {
		cfg.Hooks.EventLog = st.events
	}
	if f := simulateEpochs(t, name, cfg, epochs, root); f != nil {
		f.events = lastEvents(f.events, st.events)
		f.mark(t, name)
		t.Errorf("%s", f.report(name))
		if f.fatal {
			t.FailNow()
		}
	}
}

// simulateEpochs runs the epochs and returns the failure, or nil. The
// hooks simtest sets are in the first epoch's Config and carry over
// through the checkpoints; a failure names the epoch it happened in.
func simulateEpochs(t *testing.T, name string, cfg deterministic.Config, epochs int, root EpochFunc) *failure {
	t.Helper()
	epoch := 0
	drive := func(cfg deterministic.Config, enter func(*deterministic.Context)) {
		failedBefore := t.Failed()
		r := deterministic.New(cfg)
		for epoch = range epochs {
			cp := r.StartAndRecover(func(ctx *deterministic.Context) {
				enter(ctx)
				root(t, ctx, epoch)
			})
			if t.Failed() && !failedBefore {
				return
			}
			r = deterministic.FromCheckpoint(cp)
		}
	}
	label := func(what string) string { return fmt.Sprintf("epoch %d of %d: %s", epoch, epochs, what) }
	return harness(t, name, "", false, cfg, drive, label, nil)
}
