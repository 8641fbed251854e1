// Command kernels runs the kernel corpus of issue 15: small, realistic
// instances of classic Go concurrency bugs written against simrt
// primitives, each with a fixed twin, under every scheduler of the
// simulator, and prints how soon and how often each bug is found.
//
//	go run ./kernels -seeds 1000
package main

import (
	"errors"
	"fmt"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A Kernel runs one instance of a program and reports whether it observed
// its bug's symptom.
type Kernel func(ctx simrt.Context) bool

// Entry is one kernel of the corpus with its fixed twin.
type Entry struct {
	// Name identifies the kernel in the table.
	Name string
	// Depth is the bug's depth: how many ordering constraints between
	// tasks an interleaving must meet to show it.
	Depth int
	// Bug is the buggy program; Fixed is its fixed twin.
	Bug, Fixed Kernel
	// Buggify is how the entry's simrt.Buggify sites behave (the planted
	// programs have some; the corpus kernels none).
	Buggify deterministic.BuggifyConfig
}

// Corpus returns the kernels in table order.
func Corpus() []Entry {
	mk := func(name string, depth int, f func(fixed bool) Kernel) Entry {
		return Entry{Name: name, Depth: depth, Bug: f(false), Fixed: f(true)}
	}
	return []Entry{
		mk("lost-wakeup", 2, lostWakeup),
		mk("missed-close", 1, missedClose),
		mk("lock-order", 2, lockOrder),
		mk("check-then-act", 2, checkThenAct),
		mk("child-first", 1, childFirst),
		mk("order-violation", 1, orderViolation),
		mk("double-checked", 2, doubleChecked),
		mk("select-starves", 1, selectStarves),
		mk("leaked-task", 1, leakedTask),
		mk("timeout-half", 1, timeoutHalf),
		mk("double-done", 3, doubleDone),
		mk("retry-dup", 1, retryDup),
	}
}

// Sched is one scheduler configuration of the table.
type Sched struct {
	// Name labels the column.
	Name string
	// Config is the configuration (without its Seed).
	Config deterministic.Config
}

// Schedulers returns the table's scheduler configurations.
func Schedulers() []Sched {
	return []Sched{
		{"uniform/noyield", deterministic.Config{Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}},
		{"uniform/0.05", deterministic.Config{}},
		{"pct/d=1", deterministic.Config{Scheduling: deterministic.Scheduling{Scheduler: deterministic.PCT, PCTDepth: 1}}},
		{"pct/d=2", deterministic.Config{Scheduling: deterministic.Scheduling{Scheduler: deterministic.PCT, PCTDepth: 2}}},
		{"pct/d=3", deterministic.Config{Scheduling: deterministic.Scheduling{Scheduler: deterministic.PCT, PCTDepth: 3}}},
	}
}

// Run runs k once under cfg and reports whether the bug was detected: k
// reported its symptom, a task panicked, or the runtime stalled.
func Run(cfg deterministic.Config, k Kernel) (found bool) {
	cfg.CatchPanics = true
	defer func() {
		if v := recover(); v != nil {
			err, ok := v.(error)
			if !ok || !errors.Is(err, deterministic.ErrStalled) {
				panic(v)
			}
			found = true
		}
	}()
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		found = k(ctx)
	})
	return found
}

// Result is one cell of the table.
type Result struct {
	// First is the first seed (counting from 1) that detected the bug, 0
	// if none did.
	First int
	// Hits is how many seeds detected the bug.
	Hits int
	// FalsePositives is how many seeds the fixed twin failed on.
	FalsePositives int
}

// Measure runs e's bug and its fixed twin under s over seeds 0..n-1.
func Measure(e Entry, s Sched, n int) Result {
	var r Result
	for seed := range n {
		cfg := s.Config
		cfg.Seed = uint64(seed)
		if Run(cfg, e.Bug) {
			r.Hits++
			if r.First == 0 {
				r.First = seed + 1
			}
		}
		if Run(cfg, e.Fixed) {
			r.FalsePositives++
		}
	}
	return r
}

// FirstDetection returns the first seed (counting from 1) among 0..n-1 on
// which k is detected under s, or 0 if none is.
func FirstDetection(k Kernel, s Sched, n int) int {
	for seed := range n {
		cfg := s.Config
		cfg.Seed = uint64(seed)
		if Run(cfg, k) {
			return seed + 1
		}
	}
	return 0
}

// String formats a cell: runs to first detection / seeds detecting.
func (r Result) String() string {
	first := "-"
	if r.First > 0 {
		first = fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%s / %d", first, r.Hits)
}
