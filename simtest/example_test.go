package simtest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
	"github.com/simrt/simrt/telemetry/audit"
)

// elect stands for system code: it takes a simrt.Context and never learns
// it runs in a simulation.
func elect(ctx simrt.Context, nodes int) int {
	votes := simrt.NewChan[int](nodes)
	for i := range nodes {
		simrt.Spawn(ctx.Child("node"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(150)) * time.Millisecond)
			votes.Send(ctx, i)
			return i
		})
	}
	leader, _ := votes.Recv(ctx)
	return leader
}

// A test sweeps seeds with Explore; each seed is a subtest "seed=N", and a
// failure prints the command that replays it:
//
//	go test -run '^TestElection$' ./raft -simrt.seed=417
func ExampleExplore() {
	testElection := func(t *testing.T) {
		simtest.Explore(t, deterministic.Config{Timeout: time.Minute}, func(t *testing.T, ctx *deterministic.Context) {
			if leader := elect(ctx, 5); leader < 0 || leader >= 5 {
				t.Fatalf("leader %d", leader)
			}
		})
	}
	_ = testElection // func TestElection(t *testing.T) in a _test.go file
}

// Run runs one seed: cfg.Seed, or -simrt.seed=N.
func ExampleRun() {
	testElectionSeed3 := func(t *testing.T) {
		simtest.Run(t, deterministic.Config{Seed: 3}, func(t *testing.T, ctx *deterministic.Context) {
			t.Logf("node %d leads at %v", elect(ctx, 5), ctx.Now())
		})
	}
	_ = testElectionSeed3
}

// CheckDeterminism runs a seed twice and names the first divergent event.
func ExampleCheckDeterminism() {
	testDeterministic := func(t *testing.T) {
		simtest.CheckDeterminism(t, deterministic.Config{Seed: 1}, func(t *testing.T, ctx *deterministic.Context) {
			elect(ctx, 5)
		})
	}
	_ = testDeterministic
}

// SeedCrypto makes key generation and TLS reproducible per seed.
func ExampleSeedCrypto() {
	testHandshake := func(t *testing.T) {
		simtest.SeedCrypto(t)
		simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
			// ecdh.X25519().GenerateKey(rand.Reader) now gives the same key for the same seed.
		})
	}
	_ = testHandshake
}

// Compare finds where two event streams of one seed part.
func ExampleCompare() {
	run := func(peer string) []audit.Event {
		var log []audit.Event
		deterministic.New(deterministic.Config{Hooks: deterministic.Hooks{EventLog: -1}}).Start(func(ctx *deterministic.Context) {
			simrt.Spawn(ctx.Child(peer), func(ctx simrt.Context) int { return 0 }).Await(ctx)
			log = ctx.Auditor().Log().Events()
		})
		return log
	}
	d := simtest.Compare(run("alice"), run("bob"))
	fmt.Printf("#%d %s: %s / %s\n", d.Index, d.First.Label, d.First.Fields[1], d.Second.Fields[1])
	// Output: #1 spawn: alice / bob
}
