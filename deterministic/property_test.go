package deterministic_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// runCovered runs root with a fresh Coverage and returns it, with the
// value Start panicked with.
func runCovered(cfg deterministic.Config, root func(ctx *deterministic.Context)) (cov *deterministic.Coverage, panicked any) {
	cov = &deterministic.Coverage{}
	cfg.Hooks.Coverage = cov
	defer func() { panicked = recover() }()
	deterministic.New(cfg).Start(root)
	return cov, nil
}

// only returns the single property cov holds.
func only(t *testing.T, cov *deterministic.Coverage) deterministic.PropertyCoverage {
	t.Helper()
	ps := cov.Properties()
	if len(ps) != 1 {
		t.Fatalf("coverage holds %d properties, want 1: %+v", len(ps), ps)
	}
	return ps[0]
}

func TestAlwaysTrueCountsEvaluations(t *testing.T) {
	cov, p := runCovered(deterministic.Config{Seed: 1}, func(ctx *deterministic.Context) {
		for i := range 3 {
			simrt.Always(ctx, i >= 0, "i is never negative")
		}
	})
	if p != nil {
		t.Fatalf("Start panicked: %v", p)
	}
	got := only(t, cov)
	if got.Kind != simrt.PropertyAlways || got.Message != "i is never negative" || got.Runs != 1 ||
		got.TrueRuns != 1 || got.FalseRuns != 0 || got.Evaluations != 3 || !got.Met() || got.Failed() {
		t.Errorf("coverage %+v, want one run, three true evaluations, met, not failed", got)
	}
	if !strings.HasSuffix(got.Site.File, "property_test.go") || got.Site.Line == 0 {
		t.Errorf("site %v, want a line of property_test.go", got.Site)
	}
}

func TestAlwaysFalseStopsTheRun(t *testing.T) {
	for _, catch := range []bool{false, true} {
		var line int
		after := false
		cov, p := runCovered(deterministic.Config{Seed: 42, CatchPanics: catch}, func(ctx *deterministic.Context) {
			h := simrt.Spawn(ctx.Child("checker"), func(ctx simrt.Context) int {
				ctx.Sleep(time.Second)
				_, _, line, _ = runtime.Caller(0)
				simrt.Always(ctx, 1+1 == 3, "arithmetic holds", "sum", 2)
				after = true
				return 0
			})
			h.Await(ctx)
			ctx.Sleep(time.Hour) // never reached: the run stopped
			after = true
		})
		var pe *simrt.PropertyError
		err, _ := p.(error)
		if !errors.As(err, &pe) || !errors.Is(err, simrt.ErrPropertyFailed) {
			t.Fatalf("CatchPanics=%v: Start panicked with %v, want a *simrt.PropertyError", catch, p)
		}
		if after {
			t.Errorf("CatchPanics=%v: code after the failed Always ran", catch)
		}
		if pe.Kind != simrt.PropertyAlways || pe.Message != "arithmetic holds" || pe.Seed != 42 ||
			pe.Task != "checker" || pe.Site.Line != line+1 || !strings.HasSuffix(pe.Site.File, "property_test.go") ||
			pe.Position == 0 || pe.Time.Before(time.Unix(1, 0)) || pe.Time.After(time.Unix(1, 1e8)) {
			t.Errorf("CatchPanics=%v: error %#v, want Always at line %d, seed 42, task checker, about 1s, a position", catch, pe, line+1)
		}
		for _, want := range []string{`Always "arithmetic holds" failed at deterministic/property_test.go:`, "seed 42", "sum=2"} {
			if !strings.Contains(pe.Error(), want) {
				t.Errorf("error text %q lacks %q", pe.Error(), want)
			}
		}
		if got := only(t, cov); got.FalseRuns != 1 || !got.Failed() {
			t.Errorf("coverage %+v, want the failure counted", got)
		}
	}
}

func TestFailedPropertyStopsTheRunEvenIfRecovered(t *testing.T) {
	resumed := false
	_, p := runCovered(deterministic.Config{}, func(ctx *deterministic.Context) {
		func() {
			defer func() { recover() }()
			simrt.Unreachable(ctx, "the impossible branch", "x", 1)
		}()
		ctx.Sleep(time.Millisecond)
		resumed = true
	})
	if _, ok := p.(*simrt.PropertyError); !ok {
		t.Fatalf("Start panicked with %v, want the *simrt.PropertyError", p)
	}
	if resumed {
		t.Errorf("the task was resumed after the failure")
	}
	if !strings.Contains(p.(error).Error(), `Unreachable "the impossible branch" was reached`) {
		t.Errorf("error text %q", p)
	}
}

func TestSometimesAndReachableAreGoals(t *testing.T) {
	cov, p := runCovered(deterministic.Config{}, func(ctx *deterministic.Context) {
		simrt.Sometimes(ctx, false, "never true")
		simrt.Sometimes(ctx, true, "true once")
		simrt.Sometimes(ctx, false, "twice")
		simrt.Sometimes(ctx, true, "twice")
		simrt.Reachable(ctx, "reached")
		simrt.AlwaysOrUnreachable(ctx, true, "holds when reached")
	})
	if p != nil {
		t.Fatalf("Start panicked: %v", p)
	}
	want := map[string]struct {
		kind        simrt.PropertyKind
		trues, met  bool
		evaluations uint64
	}{
		"never true":         {simrt.PropertySometimes, false, false, 1},
		"true once":          {simrt.PropertySometimes, true, true, 1},
		"reached":            {simrt.PropertyReachable, true, true, 1},
		"holds when reached": {simrt.PropertyAlwaysOrUnreachable, true, true, 1},
	}
	ps := cov.Properties()
	if len(ps) != 6 { // "twice" at two call sites is two properties
		t.Fatalf("got %d properties, want 6: %+v", len(ps), ps)
	}
	for _, got := range ps {
		w, ok := want[got.Message]
		if !ok {
			continue
		}
		if got.Kind != w.kind || (got.TrueRuns > 0) != w.trues || got.Evaluations != w.evaluations || got.Failed() {
			t.Errorf("%q: %+v, want %+v", got.Message, got, w)
		}
		if got.Met() != w.met {
			t.Errorf("%q: Met() = %v, want %v", got.Message, got.Met(), w.met)
		}
	}
	if a, b := falseOnce(ps); a.TrueRuns+b.TrueRuns != 1 || a.Site == b.Site {
		t.Errorf("one message at two call sites: %+v and %+v, want two properties, one true", a, b)
	}
}

// falseOnce returns the two "twice" properties of ps.
func falseOnce(ps []deterministic.PropertyCoverage) (a, b deterministic.PropertyCoverage) {
	var got []deterministic.PropertyCoverage
	for _, p := range ps {
		if p.Message == "twice" {
			got = append(got, p)
		}
	}
	if len(got) == 2 {
		return got[0], got[1]
	}
	return
}

func TestCoverageCountsRunsNotEvaluations(t *testing.T) {
	cov := &deterministic.Coverage{}
	for seed := range uint64(10) {
		deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{Coverage: cov}}).Start(func(ctx *deterministic.Context) {
			for range 4 {
				odd := ctx.Rand().IntN(2) == 1
				simrt.Sometimes(ctx, odd, "an odd draw")
				if seed%2 == 0 {
					simrt.Reachable(ctx, "even seed")
				}
			}
		})
	}
	if cov.Runs() != 10 {
		t.Errorf("Runs() = %d, want 10", cov.Runs())
	}
	for _, p := range cov.Properties() {
		switch p.Message {
		case "an odd draw":
			if p.Runs != 10 || p.Evaluations != 40 || p.TrueRuns == 0 || p.TrueRuns == 10 {
				t.Errorf("%+v: want 10 runs, 40 evaluations, true in some runs but not all", p)
			}
		case "even seed":
			if p.Runs != 5 || p.Evaluations != 20 {
				t.Errorf("%+v: want 5 runs, 20 evaluations", p)
			}
		}
	}
}

// TestPropertiesAreNotAudited: adding properties to a program leaves every
// seed's audit state as it was.
func TestPropertiesAreNotAudited(t *testing.T) {
	state := func(props bool) string {
		var s string
		deterministic.New(deterministic.Config{Seed: 9}).Start(func(ctx *deterministic.Context) {
			for i := range 5 {
				v := ctx.Rand().IntN(10)
				if props {
					simrt.Always(ctx, v < 10, "draw in range", "i", i)
					simrt.Sometimes(ctx, v == 3, "drew a three")
					simrt.Reachable(ctx, "loop")
				}
				ctx.Sleep(time.Duration(v) * time.Millisecond)
			}
			s = ctx.Auditor().State()
		})
		return s
	}
	if with, without := state(true), state(false); with != without {
		t.Errorf("audit state %s with properties, %s without", with, without)
	}
}

// buggifyRun draws n calls of each of the sites and returns their
// outcomes, and the run's audit state.
func buggifyRun(cfg deterministic.Config, sites []string, n int) (fired []bool, state string) {
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		for range n {
			for _, s := range sites {
				fired = append(fired, simrt.Buggify(ctx, s))
			}
		}
		state = ctx.Auditor().State()
	})
	return fired, state
}

func TestBuggifyDeterministicPerSeed(t *testing.T) {
	sites := []string{"slow_sync", "short_timeout", "reorder"}
	cfg := deterministic.Config{Seed: 5, Buggify: deterministic.BuggifyConfig{SiteProbability: 1, FireProbability: 0.5}}
	a, sa := buggifyRun(cfg, sites, 50)
	b, sb := buggifyRun(cfg, sites, 50)
	if !slices.Equal(a, b) || sa != sb {
		t.Fatalf("one seed gave two Buggify sequences or audit states (%s, %s)", sa, sb)
	}
	cfg.Seed = 6
	if c, _ := buggifyRun(cfg, sites, 50); slices.Equal(a, c) {
		t.Errorf("seeds 5 and 6 fired the same 150 calls")
	}
	fires := 0
	for _, f := range a {
		if f {
			fires++
		}
	}
	if fires < 45 || fires > 105 { // 150 calls at q = 0.5
		t.Errorf("%d of 150 calls fired at FireProbability 0.5", fires)
	}
}

// TestBuggifySiteProbability: over many seeds, a site is enabled in about
// the fraction p of runs, and an enabled site fires on about the fraction
// q of its calls (within four standard deviations). The seeds are fixed,
// so the figures are too.
func TestBuggifySiteProbability(t *testing.T) {
	const seeds = 5000
	within := func(got, p float64, n uint64) bool { return math.Abs(got-p) <= 4*math.Sqrt(p*(1-p)/float64(n))+1e-9 }
	for _, c := range []struct{ p, q float64 }{{0, 0}, {0.1, 0.9}, {1, 0.05}} {
		cov := &deterministic.Coverage{}
		for seed := range uint64(seeds) {
			cfg := deterministic.Config{Seed: seed, Buggify: deterministic.BuggifyConfig{SiteProbability: c.p, FireProbability: c.q},
				Hooks: deterministic.Hooks{Coverage: cov},
			}
			buggifyRun(cfg, []string{"site"}, 10)
		}
		p, q := c.p, c.q
		if p == 0 {
			p, q = 0.25, 0.25 // the defaults
		}
		bs := cov.Buggify()
		if len(bs) != 1 || bs[0].Name != "site" || bs[0].Runs != seeds || bs[0].Calls != 10*seeds {
			t.Fatalf("p=%v: coverage %+v, want one site called 10 times in each of %d runs", c.p, bs, seeds)
		}
		b := bs[0]
		if got := float64(b.EnabledRuns) / seeds; !within(got, p, seeds) {
			t.Errorf("p=%v: enabled in %.3f of runs, want about %v", c.p, got, p)
		}
		if b.EnabledRuns > 0 {
			if got := float64(b.Fires) / float64(10*b.EnabledRuns); !within(got, q, 10*b.EnabledRuns) {
				t.Errorf("q=%v: fired on %.3f of an enabled site's calls, want about %v", c.q, got, q)
			}
		}
		if b.FiredRuns > b.EnabledRuns {
			t.Errorf("fired in %d runs but enabled in only %d", b.FiredRuns, b.EnabledRuns)
		}
	}
}

func TestBuggifyDisabledDrawsNothing(t *testing.T) {
	off := deterministic.Config{Seed: 3, Buggify: deterministic.BuggifyConfig{Disabled: true}}
	fired, with := buggifyRun(off, []string{"a", "b"}, 20)
	for i, f := range fired {
		if f {
			t.Fatalf("call %d fired with Buggify disabled", i)
		}
	}
	if _, without := buggifyRun(off, nil, 0); with != without {
		t.Errorf("disabled Buggify changed the audit state: %s, want %s", with, without)
	}
	if _, on := buggifyRun(deterministic.Config{Seed: 3}, []string{"a", "b"}, 20); on == with {
		t.Errorf("enabled Buggify left the audit state unchanged: its draws must be audited")
	}
}

func TestBuggifyInvalidProbabilityPanics(t *testing.T) {
	for _, p := range []float64{-0.1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "Config.Buggify.FireProbability") {
					t.Errorf("FireProbability %v: panic %v, want one naming the field", p, r)
				}
			}()
			deterministic.New(deterministic.Config{Buggify: deterministic.BuggifyConfig{FireProbability: p}})
		}()
	}
}

func TestAlwaysOutsideATaskNamesTheRuntime(t *testing.T) {
	_, p := runCovered(deterministic.Config{}, func(ctx *deterministic.Context) {
		ctx.AfterFunc(time.Second, func() { simrt.Always(ctx, false, "timer callback holds") })
		ctx.Sleep(2 * time.Second)
	})
	pe, ok := p.(*simrt.PropertyError)
	if !ok || pe.Task != "<runtime>" || !strings.Contains(pe.Error(), `task "<runtime>"`) {
		t.Fatalf("Start panicked with %v, want a *simrt.PropertyError outside any task", p)
	}
}

// BenchmarkAlwaysSimulated is the simulator's cost of a property that
// holds: finding the call site and counting the evaluation.
func BenchmarkAlwaysSimulated(b *testing.B) {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		for i := 0; b.Loop(); i++ {
			simrt.Always(ctx, i >= 0, "i is never negative")
		}
	})
}

// BenchmarkBuggifySimulated is the simulator's cost of a Buggify call of an
// enabled site: a lookup, a draw and an audited event.
func BenchmarkBuggifySimulated(b *testing.B) {
	cfg := deterministic.Config{Buggify: deterministic.BuggifyConfig{SiteProbability: 1}}
	deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
		for b.Loop() {
			simrt.Buggify(ctx, "site")
		}
	})
}
