package simtest

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// flagStrict is registered here rather than with the other settings, and
// read the same way: the flag wins over SIMRT_STRICT.
var flagStrict = &setting{name: "strict", isBool: true,
	usage: "fail an Explore sweep when a property goal is missed: an Always or Reachable never reached, a Sometimes never true, a Buggify site that never fired"}

func init() {
	flag.Var(flagStrict, "simrt."+flagStrict.name, flagStrict.usage+" (env "+flagStrict.env()+")")
}

// strictMode reports whether -simrt.strict (or SIMRT_STRICT) is on.
func strictMode() (bool, error) {
	v, ok, from := flagStrict.value, flagStrict.set, "-simrt.strict"
	if !ok {
		v, ok = os.LookupEnv(flagStrict.env())
		from = flagStrict.env()
	}
	if v = strings.TrimSpace(v); !ok || v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("simtest: %s=%q: not a boolean", from, v)
	}
	return on, nil
}

// summaryLine is one property or Buggify site of a sweep summary.
type summaryLine struct {
	text   string
	missed string // why the goal was missed, or ""
}

// coverageSummary lists every property and Buggify site of a sweep: those
// the runs reached (in cov) and those found in the source that none
// reached. It returns the lines and the goals missed.
func coverageSummary(cov *deterministic.Coverage, source []sourceSite) (lines []summaryLine, missed []string) {
	add := func(l summaryLine) {
		lines = append(lines, l)
		if l.missed != "" {
			missed = append(missed, l.missed)
		}
	}
	for _, p := range cov.Properties() {
		var what string
		switch p.Kind {
		case simrt.PropertySometimes:
			what = fmt.Sprintf("reached in %d, true in %d", p.Runs, p.TrueRuns)
		case simrt.PropertyReachable, simrt.PropertyUnreachable:
			what = fmt.Sprintf("reached in %d", p.Runs)
		default:
			what = fmt.Sprintf("reached in %d, failed in %d", p.Runs, p.FalseRuns)
		}
		l := summaryLine{text: fmt.Sprintf("%-19s %q at %s: %s", p.Kind, p.Message, p.Site, what)}
		if !p.Met() {
			l.missed = fmt.Sprintf("%s %q at %s was never true", p.Kind, p.Message, p.Site)
			l.text += "  <- NEVER TRUE"
		}
		add(l)
	}
	for _, s := range unreachedSites(cov, source) {
		if s.kind == 0 {
			add(summaryLine{
				text:   fmt.Sprintf("%-19s %q at %s:%d: never reached (found in the source)  <- NEVER REACHED", "Buggify", s.message, s.file, s.from),
				missed: fmt.Sprintf("Buggify %q at %s:%d was never reached", s.message, s.file, s.from),
			})
			continue
		}
		l := summaryLine{text: fmt.Sprintf("%-19s %q at %s:%d: never reached (found in the source)", s.kind, s.message, s.file, s.from)}
		if s.kind.Goal() {
			l.missed = fmt.Sprintf("%s %q at %s:%d was never reached", s.kind, s.message, s.file, s.from)
			l.text += "  <- NEVER REACHED"
		}
		add(l)
	}
	sites := cov.Buggify()
	for _, s := range sites {
		l := summaryLine{text: fmt.Sprintf("%-19s %q at %s: reached in %d, enabled in %d, fired in %d (%d of %d calls)",
			"Buggify", s.Name, s.Site, s.Runs, s.EnabledRuns, s.FiredRuns, s.Fires, s.Calls)}
		if s.FiredRuns == 0 {
			l.missed = fmt.Sprintf("Buggify %q at %s never fired", s.Name, s.Site)
			l.text += "  <- NEVER FIRED"
		}
		add(l)
	}
	return lines, missed
}

// unreachedSites returns the sites of source that no run in cov reached:
// a property call whose kind, message, file and lines match no property
// reached, a Buggify site whose name no run called.
func unreachedSites(cov *deterministic.Coverage, source []sourceSite) []sourceSite {
	props, sites := cov.Properties(), cov.Buggify()
	var out []sourceSite
	for _, s := range source {
		if s.dynamic {
			continue // no message to match: the runs' properties name it
		}
		var reached bool
		if s.kind == 0 {
			reached = slices.ContainsFunc(sites, func(b deterministic.BuggifyCoverage) bool { return b.Name == s.message })
		} else {
			reached = slices.ContainsFunc(props, func(p deterministic.PropertyCoverage) bool {
				return s.kind == p.Kind && s.message == p.Message && s.file == shortFile(p.Site.File) &&
					s.from <= p.Site.Line && p.Site.Line <= s.to
			})
		}
		if !reached {
			out = append(out, s)
		}
	}
	return out
}

// dynamicMessages returns one warning per call in source whose message is
// not a constant and that the runs in cov reached: each distinct message
// is a property of its own, so a message that differs per run (or per
// seed) makes as many properties, each reached once.
func dynamicMessages(cov *deterministic.Coverage, source []sourceSite) []string {
	var warnings []string
	props, sites := cov.Properties(), cov.Buggify()
	for _, s := range source {
		if !s.dynamic {
			continue
		}
		in := func(file string, line int) bool { return shortFile(file) == s.file && s.from <= line && line <= s.to }
		n, example := 0, ""
		for _, p := range props {
			if p.Kind == s.kind && in(p.Site.File, p.Site.Line) {
				n, example = n+1, p.Message
			}
		}
		for _, b := range sites {
			if s.kind == 0 && in(b.Site.File, b.Site.Line) {
				n, example = n+1, b.Name
			}
		}
		if n > 0 {
			warnings = append(warnings, fmt.Sprintf("simrt: warning: the message of %s at %s:%d is not a constant: it made %d distinct properties (such as %q); a property is known by its message, so give it a constant one and put what varies in its details",
				s.fn, s.file, s.from, n, example))
		}
	}
	return warnings
}

// goals renders "1 goal" or "n goals".
func goals(n int) string {
	if n == 1 {
		return "1 goal"
	}
	return strconv.Itoa(n) + " goals"
}

// packageSites returns the sites found in the source of the package under
// test (go test runs a test in its package's directory).
func packageSites() []sourceSite {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	return scanSites(dir)
}

// reportCoverage logs the sweep summary of cov and of the sites found in
// the package under test, when there is anything to list, and fails t in
// strict mode when a goal was missed. Strict mode does not judge a replay
// of one seed, a shard of a sweep, or a sweep that already failed: each
// sees only part of the seeds.
func reportCoverage(t *testing.T, cov *deterministic.Coverage, source []sourceSite, st settings, failed bool) {
	t.Helper()
	if cov.Runs() == 0 {
		return // no run got as far as its simulation (a bad flag): nothing to sum up
	}
	lines, missed := coverageSummary(cov, source)
	faults := faultSummary(cov)
	dynamic := dynamicMessages(cov, source)
	if len(lines) == 0 && faults == "" && len(dynamic) == 0 {
		return
	}
	var b strings.Builder
	for _, w := range dynamic {
		b.WriteString(w + "\n")
	}
	if len(lines) > 0 {
		fmt.Fprintf(&b, "simrt: properties and Buggify sites over %d runs (seeds):\n", cov.Runs())
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l.text)
		}
	}
	if faults != "" {
		fmt.Fprintf(&b, "simrt: %s (over %d runs)\n", faults, cov.Runs())
	}
	strict, err := strictMode()
	if err != nil {
		t.Error(err)
		return
	}
	partial := st.hasSeed || st.shard.N > 1 || failed
	switch {
	case len(missed) == 0:
		t.Logf("%s", b.String())
	case strict && !partial:
		fmt.Fprintf(&b, "simrt: %s missed (-simrt.strict):\n", goals(len(missed)))
		for _, m := range missed {
			fmt.Fprintf(&b, "  %s\n", m)
		}
		b.WriteString("run more seeds (-simrt.seeds), or change the system or the test so that the goals are reached")
		t.Errorf("%s", b.String())
	default:
		fmt.Fprintf(&b, "simrt: %s missed", goals(len(missed)))
		if strict {
			b.WriteString(" (not judged: this sweep ran only part of the seeds)")
		} else {
			b.WriteString(" (-simrt.strict fails the sweep on them)")
		}
		t.Logf("%s", b.String())
	}
}
