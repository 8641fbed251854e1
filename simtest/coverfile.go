package simtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/simtest/coverfile"
)

// coverRecord renders cov as the record of test.
func coverRecord(test string, cov *deterministic.Coverage, unreached []sourceSite) coverfile.Record {
	r := coverfile.Record{Test: test, Runs: cov.Runs(), Faults: map[string]uint64{}, Effects: map[string]uint64{},
		Properties: []coverfile.Property{}, Buggify: []coverfile.Buggify{}, Unreached: []coverfile.Site{}}
	for _, s := range unreached {
		kind := "Buggify"
		if s.kind != 0 {
			kind = s.kind.String()
		}
		r.Unreached = append(r.Unreached, coverfile.Site{Kind: kind, Message: s.message, File: s.file, Line: s.from})
	}
	for _, f := range cov.Faults() {
		r.Faults[string(f.Kind)] = f.Count
	}
	for _, e := range cov.Effects() {
		r.Effects[string(e.Counter)] = e.N
	}
	for _, p := range cov.Properties() {
		r.Properties = append(r.Properties, coverfile.Property{Kind: p.Kind.String(), Message: p.Message,
			File: p.Site.File, Line: p.Site.Line, Runs: p.Runs, TrueRuns: p.TrueRuns, FalseRuns: p.FalseRuns,
			Evaluations: p.Evaluations})
	}
	for _, s := range cov.Buggify() {
		r.Buggify = append(r.Buggify, coverfile.Buggify{Name: s.Name, File: s.Site.File, Line: s.Site.Line,
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
