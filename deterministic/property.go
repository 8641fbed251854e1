package deterministic

import (
	"math"
	goruntime "runtime"
	"runtime/debug"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic/decision"
	"github.com/simrt/simrt/internal/core"
	"github.com/simrt/simrt/telemetry/audit"
)

// BuggifyConfig sets how simrt.Buggify behaves in a simulation. The zero
// value switches Buggify on with FoundationDB's figures: each site is
// enabled for the run with probability 0.25, and an enabled site fires on
// a quarter of its calls.
type BuggifyConfig struct {
	// Disabled makes every Buggify call report false and draw nothing.
	Disabled bool
	// SiteProbability is the probability that a site is enabled for the
	// run, drawn at its first call. Zero means 0.25; it must lie in [0, 1].
	SiteProbability float64
	// FireProbability is the probability that an enabled site fires on a
	// call. Zero means 0.25; it must lie in [0, 1].
	FireProbability float64
}

const defaultBuggify = 0.25

// validate panics, naming the field, on a probability outside [0, 1], and
// fills in the defaults.
func (b BuggifyConfig) validate() BuggifyConfig {
	for _, p := range []struct {
		name string
		v    *float64
	}{{"SiteProbability", &b.SiteProbability}, {"FireProbability", &b.FireProbability}} {
		if math.IsNaN(*p.v) || *p.v < 0 || *p.v > 1 {
			panic("deterministic.New: Config.Buggify." + p.name + " must be in [0, 1]")
		}
		if *p.v == 0 {
			*p.v = defaultBuggify
		}
	}
	return b
}

// properties is one run's record of the properties and Buggify sites it
// reached, in the order it first reached them. It is made at the first
// property or Buggify call, so a run that makes none pays nothing.
type properties struct {
	byPC  map[propertyKey]*propertyRun
	list  []*propertyRun
	sites map[string]*buggifyRun
	order []*buggifyRun
}

// propertyKey identifies a property within a run: the return address of
// the call (one per call site, inlined or not) and the message.
type propertyKey struct {
	pc      uintptr
	message string
}

// propertyRun is what one run saw of one property.
type propertyRun struct {
	kind    simrt.PropertyKind
	message string
	site    simrt.CallSite
	evals   uint64
	trues   uint64
	falses  uint64
}

// buggifyRun is what one run saw of one Buggify site.
type buggifyRun struct {
	name    string
	site    simrt.CallSite
	calls   uint64
	enabled bool
	fires   uint64
}

func (rt *runtime) propertyState() *properties {
	if rt.props == nil {
		rt.props = &properties{byPC: make(map[propertyKey]*propertyRun), sites: make(map[string]*buggifyRun)}
	}
	return rt.props
}

// callerPC returns the return address of the call skip frames above the
// caller of callerPC.
func callerPC(skip int) uintptr {
	var pc [1]uintptr
	if goruntime.Callers(skip+2, pc[:]) == 0 {
		return 0
	}
	return pc[0]
}

// callSite resolves a return address from callerPC.
func callSite(pc uintptr) simrt.CallSite {
	if pc == 0 {
		return simrt.CallSite{}
	}
	f, _ := goruntime.CallersFrames([]uintptr{pc}).Next()
	return simrt.CallSite{File: f.File, Line: f.Line, Function: f.Function}
}

// The frames between a user's call of simrt.Always (or Buggify) and
// callerPC: the simrt function, then the Context method.
const assertSkip = 2

// AssertProperty implements simrt.Asserter; call simrt.Always, Sometimes,
// Reachable, Unreachable or AlwaysOrUnreachable instead. It counts the
// evaluation for Config.Hooks.Coverage (evaluations are not audited) and, when
// the property fails, stops the run: the runtime records a
// *simrt.PropertyError as the run's failure (the first one wins), and the
// calling task panics with it. Finding the call site makes an evaluation
// cost about half a microsecond (BenchmarkAlwaysSimulated), a few task
// resumes' worth: keep properties out of loops that run millions of times.
func (c *Context) AssertProperty(kind simrt.PropertyKind, cond bool, message string, details []any) {
	rt := c.rt
	rt.check()
	ps := rt.propertyState()
	key := propertyKey{pc: callerPC(assertSkip), message: message}
	p := ps.byPC[key]
	if p == nil {
		if message == "" {
			panic("simrt: " + kind.String() + " called with an empty message (the message is the property's identity)")
		}
		p = &propertyRun{kind: kind, message: message, site: callSite(key.pc)}
		ps.byPC[key] = p
		ps.list = append(ps.list, p)
	}
	p.evals++
	if cond {
		p.trues++
		if p.trues == 1 && (kind == simrt.PropertySometimes || kind == simrt.PropertyReachable) {
			hk := decision.HitSometimes
			if kind == simrt.PropertyReachable {
				hk = decision.HitReachable
			}
			rt.notifyHit(hk, message, p.site)
		}
	} else {
		p.falses++
	}
	if !kind.Fails(cond) {
		return
	}
	err := &simrt.PropertyError{
		Kind: kind, Message: message, Site: p.site, Details: details,
		Seed: rt.cfg.Seed, Position: rt.progress.Load(), StreamPosition: rt.stream.pos, Time: time.Unix(0, rt.now).UTC(),
	}
	err.Task = "<runtime>"
	if rt.current != nil {
		err.Task = rt.current.name
	}
	rt.sh.Fail(err.Task, &core.Panic{Value: err, Stack: debug.Stack()})
	rt.stop = true
	panic(err)
}

// BuggifySite implements simrt.Asserter; call simrt.Buggify instead. With
// Config.Buggify.Disabled it reports false and draws nothing (the call is
// still counted for Config.Hooks.Coverage). Otherwise the first call of a site
// draws whether it is enabled for the run
// (Config.Buggify.SiteProbability); each call of an enabled site draws
// whether it fires (FireProbability). Each draw comes from the run's
// generator and is audited as an audit.Buggify event with the site's name and
// the outcome ("enabled", "disabled", "fired", "held").
func (c *Context) BuggifySite(name string) bool {
	rt := c.rt
	rt.check()
	cfg := rt.cfg.Buggify
	ps := rt.propertyState()
	s := ps.sites[name]
	if s == nil {
		if name == "" {
			panic("simrt: Buggify called with an empty site name (the name is the site's identity)")
		}
		s = &buggifyRun{name: name, site: callSite(callerPC(assertSkip))}
		ps.sites[name] = s
		ps.order = append(ps.order, s)
		if !cfg.Disabled {
			s.enabled = rt.drawBuggify(name, cfg.SiteProbability, "enabled", "disabled")
		}
	}
	s.calls++
	if !s.enabled || !rt.drawBuggify(name, cfg.FireProbability, "fired", "held") {
		return false
	}
	s.fires++
	if s.fires == 1 {
		rt.notifyHit(decision.HitBuggify, name, s.site)
	}
	return true
}

// notifyHit tells a Config.Replay that is a HitObserver that the run first
// reached a goal, at the stream's current position.
func (rt *runtime) notifyHit(kind decision.HitKind, name string, site simrt.CallSite) {
	if o, ok := rt.stream.replay.(decision.HitObserver); ok {
		o.FirstHit(decision.Hit{Kind: kind, Name: name, Site: site, Position: rt.stream.pos})
	}
}

// drawBuggify draws one event of probability p for site and audits its
// outcome.
func (rt *runtime) drawBuggify(site string, p float64, yes, no string) bool {
	hit := float64(rt.stream.next(decision.KindBuggify)>>11)*0x1p-53 < p
	outcome := no
	if hit {
		outcome = yes
	}
	rt.auditor.Event(audit.Buggify, []byte(site), []byte(outcome))
	return hit
}

// finishProperties adds the run's record to Config.Hooks.Coverage, if set.
func (rt *runtime) finishProperties() {
	if cov := rt.cfg.Hooks.Coverage; cov != nil {
		cov.add(rt.props)
		cov.addFaults(rt.faults())
		cov.addEffects(rt.faultEffects())
	}
}
