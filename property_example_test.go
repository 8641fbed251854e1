package simrt_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/realtime"
)

// withdraw is system code with an off-by-one bug: it states what must
// always hold, and what a test should see happen at least once.
func withdraw(ctx simrt.Context, balance, amount int) int {
	if amount > balance+1 {
		simrt.Sometimes(ctx, true, "a withdrawal was refused")
		return balance
	}
	balance -= amount
	simrt.Always(ctx, balance >= 0, "balance never negative", "balance", balance)
	return balance
}

// A false Always stops a simulation: Start re-raises the task's
// *simrt.PropertyError, which names the property, its call site, the seed
// and the position in the run.
func ExampleAlways() {
	defer func() {
		var pe *simrt.PropertyError
		if err, ok := recover().(error); ok && errors.As(err, &pe) {
			fmt.Println(pe.Kind, pe.Message, pe.Seed, pe.Details)
		}
	}()
	deterministic.New(deterministic.Config{Seed: 7}).Start(func(ctx *deterministic.Context) {
		withdraw(ctx, 10, 3)
		withdraw(ctx, 10, -5) // fine
		withdraw(ctx, -1, 0)  // a bug upstream: the balance was already negative
	})
	// Output: Always balance never negative 7 [balance -1]
}

// A Coverage shared by the runs of a sweep counts, per property, the runs
// that reached it and the runs in which it held (simtest.Explore prints
// this summary, with the calls found in the source that no run reached).
func ExampleSometimes() {
	cov := &deterministic.Coverage{}
	for seed := range uint64(20) {
		deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Coverage: cov}}).Start(func(ctx *deterministic.Context) {
			roll := ctx.Rand().IntN(6)
			simrt.Sometimes(ctx, roll == 0, "rolled a zero")
			if roll == 5 {
				simrt.Reachable(ctx, "rolled a five")
			}
		})
	}
	for _, p := range cov.Properties() {
		fmt.Printf("%s %q: reached in %d of %d runs, true in %d\n", p.Kind, p.Message, p.Runs, cov.Runs(), p.TrueRuns)
	}
	// Output:
	// Sometimes "rolled a zero": reached in 20 of 20 runs, true in 6
	// Reachable "rolled a five": reached in 3 of 20 runs, true in 3
}

// Buggify widens a race window only in simulation. Here every site is
// enabled and fires on every call; production never fires.
func ExampleBuggify() {
	flush := func(ctx simrt.Context) time.Duration {
		start := ctx.Now()
		if simrt.Buggify(ctx, "slow_flush") {
			ctx.Sleep(time.Second) // a slow disk, in simulated time
		}
		return ctx.Now().Sub(start)
	}
	always := deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 1}
	deterministic.New(deterministic.Config{Buggify: always}).Start(func(ctx *deterministic.Context) {
		fmt.Println("simulation:", flush(ctx))
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	realtime.New(realtime.Config{Logger: quiet}).Start(func(ctx simrt.Context) {
		fmt.Println("production fired:", flush(ctx) >= time.Second)
	})
	// Output:
	// simulation: 1s
	// production fired: false
}
