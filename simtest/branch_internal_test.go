package simtest

import (
	"reflect"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/telemetry/audit"
)

// twoRare fails only when Buggify site "first_rare" fires in its first
// phase and then "second_rare" fires in its second: two events of about 1%
// per run each, in a row. Its tasks sleep and race, so the schedule draws
// too.
func twoRare(ctx *deterministic.Context) (failed bool) {
	armed := false
	simrt.Spawn(ctx.Child("noise"), func(ctx simrt.Context) int {
		for range 3 {
			ctx.Sleep(time.Duration(ctx.Rand().IntN(3)) * time.Millisecond)
		}
		return 0
	})
	for i := 0; i < 10 && !armed; i++ {
		armed = simrt.Buggify(ctx, "first_rare")
		ctx.Sleep(time.Millisecond)
	}
	simrt.Sometimes(ctx, armed, "first rare event")
	if !armed {
		return false
	}
	for range 10 {
		if simrt.Buggify(ctx, "second_rare") {
			return true
		}
		ctx.Sleep(time.Millisecond)
	}
	return false
}

// twoRareConfig enables both sites in every run and fires them on 0.1% of
// their calls.
var twoRareConfig = deterministic.Config{Buggify: deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 0.001}}

// tryBody runs body once under cfg; a panic counts as a failure.
func tryBody(cfg deterministic.Config, body func(*deterministic.Context) bool) (failed bool) {
	defer func() {
		if recover() != nil {
			failed = true
		}
	}()
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) { failed = body(ctx) })
	return failed
}

// explored is what the test saw of one run of the explorer.
type explored struct {
	prefix []decision.Decision
	record *decision.Stream
	events []audit.Event
	// eventsAt[k] is how many events the run had audited when it made
	// decision k.
	eventsAt []int
}

// eventsUpTo returns how many events the run audited before decision k,
// or all of them if it made no decision k.
func (e explored) eventsUpTo(k int) int {
	if k < len(e.eventsAt) {
		return e.eventsAt[k]
	}
	return len(e.events)
}

// watcher wraps the explorer's Decider to note, at each decision, how many
// events the run has audited.
type watcher struct {
	*brancher
	aud **deterministic.Auditor
	at  *[]int
}

func (w watcher) Decide(pos uint64, k decision.Kind) (uint64, bool) {
	n := 0
	if *w.aud != nil {
		n = int((*w.aud).Log().Total())
	}
	*w.at = append(*w.at, n)
	return w.brancher.Decide(pos, k)
}

// TestBranchReplaysPrefixExactly: a run that continues a stored prefix of
// k decisions makes exactly the prefix's decisions and audits exactly the
// events its origin run audited up to decision k; after k it goes its own
// way.
func TestBranchReplaysPrefixExactly(t *testing.T) {
	var runs []explored
	cfg := twoRareConfig
	cfg.Hooks.EventLog = -1
	rep := BranchSearch(cfg, BranchOptions{Runs: 400, KeepGoing: true}, func(c deterministic.Config) bool {
		e := explored{prefix: c.Replay.(*brancher).Decisions, record: c.Hooks.Record}
		var aud *deterministic.Auditor
		c.Replay = watcher{c.Replay.(*brancher), &aud, &e.eventsAt}
		failed := tryBody(c, func(ctx *deterministic.Context) bool {
			aud = ctx.Auditor()
			return twoRare(ctx)
		})
		e.events = aud.Log().Events()
		runs = append(runs, e)
		return failed
	})
	if len(rep.Sites) < 2 {
		t.Fatalf("the explorer reached %d goals in %d runs, want at least 2: %+v", len(rep.Sites), rep.Runs, rep.Sites)
	}
	checked, diverged := 0, 0
	for i, r := range runs {
		k := len(r.prefix)
		if k == 0 {
			continue
		}
		origin := -1
		for j := range runs[:i] {
			if len(runs[j].record.Decisions) >= k && &runs[j].record.Decisions[0] == &r.prefix[0] {
				origin = j
			}
		}
		if origin < 0 {
			t.Fatalf("run %d: its prefix of %d decisions is no earlier run's", i+1, k)
		}
		o := runs[origin]
		if !reflect.DeepEqual(r.record.Decisions[:k], o.record.Decisions[:k]) {
			t.Fatalf("run %d: its first %d decisions differ from those of run %d", i+1, k, origin+1)
		}
		n := o.eventsUpTo(k)
		if r.eventsUpTo(k) != n || !reflect.DeepEqual(r.events[:n], o.events[:n]) {
			t.Fatalf("run %d: the %d events up to decision %d differ from those of run %d", i+1, n, k, origin+1)
		}
		if !reflect.DeepEqual(r.record.Decisions, o.record.Decisions) {
			diverged++
		}
		checked++
	}
	if checked < 100 || diverged == 0 {
		t.Fatalf("checked %d runs that replayed a prefix, %d of them diverged after it; want at least 100, and some diverging", checked, diverged)
	}
}

// TestBranchSumNotProduct: the explorer finds twoRare's bug (two events of
// about 1% per run in a row) within 2,000 runs, where 2,000 uniform seeds
// find it not once; a goal reached from the first one's prefix has depth 1.
func TestBranchSumNotProduct(t *testing.T) {
	rep := BranchSearch(twoRareConfig, BranchOptions{Runs: 2000}, func(c deterministic.Config) bool { return tryBody(c, twoRare) })
	if rep.FirstFailure == 0 {
		t.Fatalf("the explorer missed the bug in %d runs; goals: %+v", rep.Runs, rep.Sites)
	}
	deep := false
	for _, s := range rep.Sites {
		if s.Hit.Name == "second_rare" && s.Depth >= 1 {
			deep = true
		}
	}
	if !deep {
		t.Errorf("second_rare was not reached from a stored prefix: %+v", rep.Sites)
	}
	for seed := range uint64(2000) {
		c := twoRareConfig
		c.Seed = seed
		if tryBody(c, twoRare) {
			t.Fatalf("uniform seed %d found the bug: the planted bug is not rare enough for this test", seed)
		}
	}
	// Replaying the failing run's stream reruns it, whatever the seed.
	c := twoRareConfig
	c.Seed, c.Replay = rep.FailingSeed+1, rep.Failing
	if !tryBody(c, twoRare) {
		t.Errorf("the failing run's stream (%d decisions) does not fail on replay", len(rep.Failing.Decisions))
	}
	t.Logf("branching: first failure at run %d; goals %+v", rep.FirstFailure, rep.Sites)
}

// TestBranchSameOptionsSameExploration: the explorer is deterministic.
func TestBranchSameOptionsSameExploration(t *testing.T) {
	run := func() BranchReport {
		return BranchSearch(twoRareConfig, BranchOptions{Runs: 300, Seed: 5, KeepGoing: true}, func(c deterministic.Config) bool { return tryBody(c, twoRare) })
	}
	a, b := run(), run()
	a.Failing, b.Failing = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two explorations with the same options differ:\n%+v\n%+v", a, b)
	}
}
