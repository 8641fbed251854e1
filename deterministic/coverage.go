package deterministic

import (
	"cmp"
	"slices"
	"sync"

	"github.com/simrt/simrt"
)

// Coverage sums up, over many runs, which properties (simrt.Always,
// Sometimes, ...) and Buggify sites each run reached. Give every run of a
// sweep the same *Coverage in Config.Hooks.Coverage; each run adds its record
// when it ends, whether it passed or failed. simtest.Explore does this and
// prints the summary.
//
// A property is identified by its kind, message and call site (file and
// line); a Buggify site by its name. A run resumed from a Checkpoint counts
// as a run of its own.
//
// The zero value is ready to use. A Coverage may be shared by runs on
// different goroutines.
type Coverage struct {
	mu     sync.Mutex
	runs   uint64
	props  map[propertyID]*PropertyCoverage
	sites  map[string]*BuggifyCoverage
	faults faultTotals // faults injected and what they did (faults.go)
}

type propertyID struct {
	kind    simrt.PropertyKind
	message string
	file    string
	line    int
}

// PropertyCoverage is what a sweep saw of one property.
type PropertyCoverage struct {
	Kind    simrt.PropertyKind
	Message string
	Site    simrt.CallSite
	// Runs counts the runs that evaluated the property at least once.
	Runs uint64
	// TrueRuns counts the runs in which it was true at least once (for
	// Sometimes, the runs that met the goal).
	TrueRuns uint64
	// FalseRuns counts the runs in which it was false at least once (for
	// Always and AlwaysOrUnreachable, the runs it failed). A reached
	// Unreachable counts in Runs and TrueRuns: its failures are its Runs.
	FalseRuns uint64
	// Evaluations counts the evaluations over all runs.
	Evaluations uint64
}

// Met reports whether the property's goal is met (see
// simrt.PropertyKind.Goal): Always and Reachable were evaluated and
// Sometimes was true in at least one run. Kinds without a goal are always
// met.
func (p PropertyCoverage) Met() bool {
	switch p.Kind {
	case simrt.PropertyAlways, simrt.PropertyReachable:
		return p.Runs > 0
	case simrt.PropertySometimes:
		return p.TrueRuns > 0
	}
	return true
}

// Failed reports whether the property failed in at least one run.
func (p PropertyCoverage) Failed() bool {
	switch p.Kind {
	case simrt.PropertyAlways, simrt.PropertyAlwaysOrUnreachable:
		return p.FalseRuns > 0
	case simrt.PropertyUnreachable:
		return p.Runs > 0
	}
	return false
}

// BuggifyCoverage is what a sweep saw of one Buggify site.
type BuggifyCoverage struct {
	// Name is the site's name; Site is where a run first called it.
	Name string
	Site simrt.CallSite
	// Runs counts the runs that called the site; EnabledRuns those that
	// enabled it; FiredRuns those in which it fired at least once.
	Runs, EnabledRuns, FiredRuns uint64
	// Calls and Fires count calls and fires over all runs.
	Calls, Fires uint64
}

// add folds one run's record into c.
func (c *Coverage) add(ps *properties) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs++
	if ps == nil {
		return
	}
	if c.props == nil {
		c.props = make(map[propertyID]*PropertyCoverage)
		c.sites = make(map[string]*BuggifyCoverage)
	}
	// One run may reach a property from several return addresses (the
	// same line, inlined twice): count the run once.
	seen := make(map[propertyID]bool, len(ps.list))
	type flags struct{ t, f bool }
	got := make(map[propertyID]flags, len(ps.list))
	for _, p := range ps.list {
		id := propertyID{p.kind, p.message, p.site.File, p.site.Line}
		pc := c.props[id]
		if pc == nil {
			pc = &PropertyCoverage{Kind: p.kind, Message: p.message, Site: p.site}
			c.props[id] = pc
		}
		pc.Evaluations += p.evals
		g := got[id]
		g.t, g.f = g.t || p.trues > 0, g.f || p.falses > 0
		got[id] = g
		if !seen[id] {
			seen[id] = true
			pc.Runs++
		}
	}
	for _, p := range ps.list {
		id := propertyID{p.kind, p.message, p.site.File, p.site.Line}
		if g, ok := got[id]; ok {
			pc := c.props[id]
			if g.t {
				pc.TrueRuns++
			}
			if g.f {
				pc.FalseRuns++
			}
			delete(got, id)
		}
	}
	for _, s := range ps.order {
		bc := c.sites[s.name]
		if bc == nil {
			bc = &BuggifyCoverage{Name: s.name, Site: s.site}
			c.sites[s.name] = bc
		}
		bc.Runs++
		bc.Calls += s.calls
		bc.Fires += s.fires
		if s.enabled {
			bc.EnabledRuns++
		}
		if s.fires > 0 {
			bc.FiredRuns++
		}
	}
}

// Runs returns the number of runs added so far.
func (c *Coverage) Runs() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs
}

// Properties returns every property some run reached, sorted by file,
// line, message and kind.
func (c *Coverage) Properties() []PropertyCoverage {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]PropertyCoverage, 0, len(c.props))
	for _, p := range c.props {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b PropertyCoverage) int {
		return cmp.Or(cmp.Compare(a.Site.File, b.Site.File), cmp.Compare(a.Site.Line, b.Site.Line),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// Buggify returns every Buggify site some run called, sorted by name.
func (c *Coverage) Buggify() []BuggifyCoverage {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]BuggifyCoverage, 0, len(c.sites))
	for _, s := range c.sites {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b BuggifyCoverage) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
