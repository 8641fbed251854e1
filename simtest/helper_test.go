package simtest_test

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// The tests in this file fail on purpose. They do their work only when
// another test starts this test binary again with SIMTEST_HELPER set to
// their name, and that test checks what they print; otherwise they return
// at once (the os/exec helper-process pattern).
func helper(t *testing.T) bool {
	return os.Getenv("SIMTEST_HELPER") == t.Name()
}

// raceForLeader fails when task "b" finishes before task "a": the order
// depends on the seed's schedule and on the random sleeps.
func raceForLeader(t *testing.T, ctx *deterministic.Context) {
	var order []string
	done := simrt.NewChan[struct{}](2)
	for _, name := range []string{"a", "b"} {
		simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) struct{} {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(3)) * time.Millisecond)
			order = append(order, name)
			if name == "b" && len(order) == 1 {
				panic("b became leader before a")
			}
			done.Send(ctx, struct{}{})
			return struct{}{}
		})
	}
	for range 2 {
		done.Recv(ctx)
	}
}

func TestHelperPanic(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, raceForLeader)
}

func TestHelperFatal(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(5)) * time.Millisecond)
			if ctx.Now().UnixMilli() == 3 {
				t.Fatalf("checker woke at 3ms")
			}
			return 0
		}).Await(ctx)
	})
}

func TestHelperStall(t *testing.T) {
	if !helper(t) {
		return
	}
	// NoYield: the waiter must be the last task to run before the stall
	// (a spawned task that runs first leaves the root last).
	simtest.Run(t, deterministic.Config{Seed: 7, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}, func(t *testing.T, ctx *deterministic.Context) {
		ch := simrt.NewChan[int](1)
		simrt.Spawn(ctx.Child("waiter"), func(ctx simrt.Context) int { v, _ := ch.Recv(ctx); return v }).Await(ctx)
	})
}

// TestHelperLivelock spins: two tasks hand each other a value forever at
// the end of simulated time, where the clock no longer advances.
func TestHelperLivelock(t *testing.T) {
	if !helper(t) {
		return
	}
	end := time.Unix(0, math.MaxInt64).Add(-2 * time.Millisecond)
	simtest.Run(t, deterministic.Config{Seed: 7, StartTime: end, LivelockSteps: 1000}, func(t *testing.T, ctx *deterministic.Context) {
		ping, pong := simrt.NewChan[int](0), simrt.NewChan[int](0)
		simrt.Spawn(ctx.Child("pinger"), func(ctx simrt.Context) int {
			for {
				ping.Send(ctx, 1)
				pong.Recv(ctx)
			}
		})
		simrt.Spawn(ctx.Child("ponger"), func(ctx simrt.Context) int {
			for {
				v, _ := ping.Recv(ctx)
				pong.Send(ctx, v)
			}
		})
		ctx.Sleep(time.Hour)
	})
}

// TestHelperMapOrder picks whom to spawn by ranging over a map: runs of
// one seed differ, and -simrt.checkdeterminism says where.
func TestHelperMapOrder(t *testing.T) {
	if !helper(t) {
		return
	}
	peers := map[string]bool{"alice": true, "bob": true, "carol": true, "dave": true,
		"erin": true, "frank": true, "grace": true, "heidi": true}
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		for range 32 {
			for name := range peers {
				simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int { return 0 }).Await(ctx)
				break
			}
		}
	})
}

// TestHelperError marks the test failed from task "checker" at 3ms of
// simulated time, while the run goes on to 10ms; both tasks log.
func TestHelperError(t *testing.T) {
	if !helper(t) {
		return
	}
	// NoYield: the expected times assume tasks switch only where they park.
	simtest.Run(t, deterministic.Config{Seed: 7, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}, func(t *testing.T, ctx *deterministic.Context) {
		h := simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) int {
			ctx.Sleep(2 * time.Millisecond)
			simrt.Logger(ctx).Info("checking", "want", 42)
			t.Errorf("checker saw 41")
			return 0
		})
		simrt.Logger(ctx).Info("root waits")
		ctx.Sleep(10 * time.Millisecond)
		h.Await(ctx)
	})
}

// TestHelperQuietLogs logs from a passing simulation, then fails outside
// it: the simulation's log must not be printed.
func TestHelperQuietLogs(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{Seed: 7}, func(t *testing.T, ctx *deterministic.Context) {
		simrt.Logger(ctx).Info("hush")
	})
	t.Error("failed after the simulation")
}

// TestHelperNativeBlock sweeps seeds 0..3 in which seed 2's task "stuck"
// blocks on a native channel, then runs another simulation: the seed fails
// with the watchdog's verdict, and the other seeds and the next run go on.
func TestHelperNativeBlock(t *testing.T) {
	if !helper(t) {
		return
	}
	cfg := deterministic.Config{Hooks: deterministic.Hooks{Watchdog: 100 * time.Millisecond}}
	t.Run("sweep", func(t *testing.T) {
		simtest.Explore(t, cfg, func(t *testing.T, ctx *deterministic.Context) {
			seed := ctx.Seed()
			simrt.Spawn(ctx.Child("stuck"), func(ctx simrt.Context) int {
				ctx.Sleep(time.Millisecond)
				if seed == 2 {
					<-make(chan int) // a native block
				}
				return 0
			}).Await(ctx)
		})
	})
	t.Run("next", func(t *testing.T) {
		simtest.Run(t, cfg, func(t *testing.T, ctx *deterministic.Context) { ctx.Sleep(time.Second) })
	})
}
