package main

import (
	"fmt"
	"testing"
	"time"
)

// goldenMoved is the message of every golden mismatch.
const goldenMoved = "audit state moved: if this change is deliberate, update the golden value in the same commit and say why in the commit message"

// TestGoldenSeed pins the audit state of one raftkv seed with a
// whole-cluster crash and nemesis faults of every class (network, process,
// clock), with what the run observed (operations, crashes,
// simulated time). A change to the simulator, the network or storage model,
// the harness or the node that moves them must be deliberate, with the new
// values in the same commit and the reason in its message. The seed runs
// twice: the same seed must give the same outcome.
//
// runSeed builds its own deterministic.Config, so the event count is not
// reachable from here; the audit state covers every event and its order.
func TestGoldenSeed(t *testing.T) {
	for _, tc := range []struct {
		name        string
		seed        uint64
		wantState   string
		wantOps     int
		wantCrashes int
		wantSim     time.Duration
	}{
		{"raftkv", 0, "0a09efd4", 199, 1, 7128820976 * time.Nanosecond},
	} {
		t.Run(fmt.Sprintf("%s/seed=%d", tc.name, tc.seed), func(t *testing.T) {
			first := runSeed(simConfig{Seed: tc.seed})
			second := runSeed(simConfig{Seed: tc.seed})
			if first != second {
				t.Fatalf("seed %d: same seed, different outcomes:\n%+v\n%+v", tc.seed, first, second)
			}
			if first.Failure != "" {
				t.Fatalf("seed %d failed: %s", tc.seed, first.Failure)
			}
			if first.Audit != tc.wantState || first.Ops != tc.wantOps || first.Crashes != tc.wantCrashes || first.SimTime != tc.wantSim {
				t.Fatalf("seed %d: audit state %s, %d operations, %d crashes, %v simulated; golden %s, %d, %d, %v\n%s",
					tc.seed, first.Audit, first.Ops, first.Crashes, first.SimTime, tc.wantState, tc.wantOps, tc.wantCrashes, tc.wantSim, goldenMoved)
			}
		})
	}
}
