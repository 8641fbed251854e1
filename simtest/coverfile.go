package simtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
)

// CoverRecord is one line of a -simrt.coverfile: what one Explore sweep
// covered. simrt sweep reads these lines back from each of its processes
// and merges them.
type CoverRecord struct {
	// Test is the name of the test that called Explore.
	Test string `json:"test"`
	// Runs is the number of runs (seeds) the sweep added.
	Runs uint64 `json:"runs"`
	// Faults counts the faults injected over all runs, by kind (see
	// deterministic.Context.Faults).
	Faults fault.Counts `json:"faults"`
	// Effects sums what the faults did over all runs, by counter (see
	// deterministic.Coverage.Effects): "sends_held", "ops_failed", ...
	Effects map[fault.Counter]uint64 `json:"effects"`
	// Properties are the properties some run reached.
	Properties []CoverProperty `json:"properties"`
	// Buggify are the Buggify sites some run called.
	Buggify []CoverBuggify `json:"buggify"`
	// Unreached are the calls found in the package's source (with a
	// constant message or site name) that no run reached. simrt sweep
	// reports a site as never reached when every process's record lists it.
	Unreached []CoverSite `json:"unreached"`
}

// CoverSite is a call of a property function or of Buggify found in the
// source that no run reached.
type CoverSite struct {
	Kind    string `json:"kind"`    // "Always", ..., or "Buggify"
	Message string `json:"message"` // the message, or Buggify's site name
	File    string `json:"file"`    // the last directory and the file name
	Line    int    `json:"line"`    // the call's first line
}

// CoverProperty is one property of a CoverRecord, as in
// deterministic.PropertyCoverage.
type CoverProperty struct {
	Kind        string `json:"kind"`
	Message     string `json:"message"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Runs        uint64 `json:"runs"`
	TrueRuns    uint64 `json:"true_runs"`
	FalseRuns   uint64 `json:"false_runs"`
	Evaluations uint64 `json:"evaluations"`
}

// CoverBuggify is one Buggify site of a CoverRecord, as in
// deterministic.BuggifyCoverage.
type CoverBuggify struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Runs        uint64 `json:"runs"`
	EnabledRuns uint64 `json:"enabled_runs"`
	FiredRuns   uint64 `json:"fired_runs"`
	Calls       uint64 `json:"calls"`
	Fires       uint64 `json:"fires"`
}

// coverRecord renders cov as the record of test.
func coverRecord(test string, cov *deterministic.Coverage, unreached []sourceSite) CoverRecord {
	r := CoverRecord{Test: test, Runs: cov.Runs(), Faults: fault.Counts{}, Effects: map[fault.Counter]uint64{},
		Properties: []CoverProperty{}, Buggify: []CoverBuggify{}, Unreached: []CoverSite{}}
	for _, s := range unreached {
		kind := "Buggify"
		if s.kind != 0 {
			kind = s.kind.String()
		}
		r.Unreached = append(r.Unreached, CoverSite{Kind: kind, Message: s.message, File: s.file, Line: s.from})
	}
	for _, f := range cov.Faults() {
		r.Faults[f.Kind] = f.Count
	}
	for _, e := range cov.Effects() {
		r.Effects[e.Counter] = e.N
	}
	for _, p := range cov.Properties() {
		r.Properties = append(r.Properties, CoverProperty{Kind: p.Kind.String(), Message: p.Message,
			File: p.Site.File, Line: p.Site.Line, Runs: p.Runs, TrueRuns: p.TrueRuns, FalseRuns: p.FalseRuns,
			Evaluations: p.Evaluations})
	}
	for _, s := range cov.Buggify() {
		r.Buggify = append(r.Buggify, CoverBuggify{Name: s.Name, File: s.Site.File, Line: s.Site.Line,
			Runs: s.Runs, EnabledRuns: s.EnabledRuns, FiredRuns: s.FiredRuns, Calls: s.Calls, Fires: s.Fires})
	}
	return r
}

// appendCoverFile appends the record of test's sweep, with the sites of
// the source no run reached, to path as one line of JSON.
func appendCoverFile(path, test string, cov *deterministic.Coverage, unreached []sourceSite) error {
	line, err := json.Marshal(coverRecord(test, cov, unreached))
	if err != nil {
		return fmt.Errorf("simtest: -simrt.coverfile: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("simtest: -simrt.coverfile: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("simtest: -simrt.coverfile: %w", err)
	}
	return nil
}

// faultSummary renders the faults cov counted, sorted by kind, and what
// they did: "faults injected: clog 12, partition 41; their effects:
// dials_refused 3, sends_held 80", or "" when none were injected.
func faultSummary(cov *deterministic.Coverage) string {
	fs := cov.Faults()
	if len(fs) == 0 {
		return ""
	}
	s := "faults injected: " + countLine(fs)
	if es := cov.Effects(); len(es) > 0 {
		s += "; their effects: " + tallyLine(es)
	} else {
		s += "; their effects: none"
	}
	return s
}

// countLine renders counts as "kind n, kind n".
func countLine(cs []deterministic.FaultCount) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.Kind, c.Count)
	}
	return strings.Join(parts, ", ")
}

// tallyLine renders effect counters as "counter n, counter n".
func tallyLine(ts []fault.Tally) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s %d", t.Counter, t.N)
	}
	return strings.Join(parts, ", ")
}
