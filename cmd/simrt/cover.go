package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/simtest/coverfile"
)

// propertyReport is one property in a sweepReport: where it is and how
// many seeds reached it, made it true and made it false (for Always, the
// seeds it failed).
type propertyReport struct {
	Kind         string `json:"kind"`
	Message      string `json:"message"`
	Site         string `json:"site"` // file:line
	SeedsReached uint64 `json:"seeds_reached"`
	SeedsTrue    uint64 `json:"seeds_true"`
	SeedsFalse   uint64 `json:"seeds_false"`
	// Missed says why the property is a missed goal ("never true"), or "".
	Missed string `json:"missed,omitempty"`
}

// unreachedReport is one call found in the source that no seed of the
// sweep reached.
type unreachedReport struct {
	Kind    string `json:"kind"` // "Always", ..., or "Buggify"
	Message string `json:"message"`
	Site    string `json:"site"` // the last directory, the file name and the line
	Goal    bool   `json:"goal"` // a missed goal: not an AlwaysOrUnreachable or an Unreachable
}

// buggifyReport is one Buggify site in a sweepReport.
type buggifyReport struct {
	Name         string `json:"name"`
	Site         string `json:"site"`
	SeedsReached uint64 `json:"seeds_reached"`
	SeedsEnabled uint64 `json:"seeds_enabled"`
	SeedsFired   uint64 `json:"seeds_fired"`
	Missed       string `json:"missed,omitempty"` // "never fired", or ""
}

// coverage merges the records of every test process of a sweep. Guarded
// by sweep.mu.
type coverage struct {
	faults  fault.Counts               // by name, older spellings summed with the current ones
	effects map[fault.Counter]uint64   // what the faults did, by counter
	props   map[string]*propertyReport // by kind, message and site
	sites   map[string]*buggifyReport  // by name
	// unreached counts, per site found in the source, the records that
	// list it as unreached; records counts the records that list sites at
	// all. A site no seed reached is in every one of them.
	unreached map[unreachedReport]int
	records   int
}

// readCoverFile merges the records of one test process's cover file into
// c. A missing file adds nothing: the process ended before its Explore did.
func (c *coverage) readCoverFile(path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return c.read(f)
}

// read merges the JSON lines of r into c.
func (c *coverage) read(r io.Reader) error {
	if c.faults == nil {
		c.faults = fault.Counts{}
		c.effects = map[fault.Counter]uint64{}
		c.props = map[string]*propertyReport{}
		c.sites = map[string]*buggifyReport{}
		c.unreached = map[unreachedReport]int{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec coverfile.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("coverage file: %w", err)
		}
		for k, n := range rec.Faults { // summed: order does not matter
			c.faults.Add(fault.Canonical(k), n)
		}
		for k, n := range rec.Effects { // summed: order does not matter
			c.effects[fault.Counter(k)] += n
		}
		for _, p := range rec.Properties {
			site := shortSite(p.File, p.Line)
			key := p.Kind + "\x00" + p.Message + "\x00" + site
			pr := c.props[key]
			if pr == nil {
				pr = &propertyReport{Kind: p.Kind, Message: p.Message, Site: site}
				c.props[key] = pr
			}
			pr.SeedsReached += p.Runs
			pr.SeedsTrue += p.TrueRuns
			pr.SeedsFalse += p.FalseRuns
		}
		for _, b := range rec.Buggify {
			br := c.sites[b.Name]
			if br == nil {
				br = &buggifyReport{Name: b.Name, Site: shortSite(b.File, b.Line)}
				c.sites[b.Name] = br
			}
			br.SeedsReached += b.Runs
			br.SeedsEnabled += b.EnabledRuns
			br.SeedsFired += b.FiredRuns
		}
		if rec.Unreached != nil {
			c.records++
		}
		for _, u := range rec.Unreached {
			goal := u.Kind == "Always" || u.Kind == "Sometimes" || u.Kind == "Reachable" || u.Kind == "Buggify"
			c.unreached[unreachedReport{Kind: u.Kind, Message: u.Message, Site: fmt.Sprintf("%s:%d", u.File, u.Line), Goal: goal}]++
		}
	}
	return sc.Err()
}

// shortSite renders file:line, the file relative to the working directory
// when it lies below it.
func shortSite(file string, line int) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && filepath.IsAbs(file) && !strings.HasPrefix(rel, "..") {
			file = rel
		}
	}
	return fmt.Sprintf("%s:%d", file, line)
}

// lists returns the merged coverage, sorted: properties by site, message
// and kind; Buggify sites by name. Faults and effects are maps, which
// encoding/json writes sorted by key.
func (c *coverage) lists() (faults fault.Counts, effects map[fault.Counter]uint64, props []propertyReport, sites []buggifyReport, unreached []unreachedReport) {
	faults, effects = fault.Counts{}, map[fault.Counter]uint64{}
	for k, n := range c.faults { // copied: order does not matter
		faults[k] = n
	}
	for k, n := range c.effects { // copied: order does not matter
		effects[k] = n
	}
	props, sites = []propertyReport{}, []buggifyReport{}
	for _, p := range c.props { // sorted below
		if (p.Kind == "Sometimes" && p.SeedsTrue == 0) || ((p.Kind == "Always" || p.Kind == "Reachable") && p.SeedsReached == 0) {
			p.Missed = "never true"
		}
		props = append(props, *p)
	}
	slices.SortFunc(props, func(a, b propertyReport) int {
		return cmp.Or(cmp.Compare(a.Site, b.Site), cmp.Compare(a.Message, b.Message), cmp.Compare(a.Kind, b.Kind))
	})
	for _, s := range c.sites { // sorted below
		if s.SeedsFired == 0 {
			s.Missed = "never fired"
		}
		sites = append(sites, *s)
	}
	slices.SortFunc(sites, func(a, b buggifyReport) int { return cmp.Compare(a.Name, b.Name) })
	unreached = []unreachedReport{}
	for u, n := range c.unreached { // sorted below
		if n == c.records && (u.Kind != "Buggify" || c.sites[u.Message] == nil) {
			unreached = append(unreached, u)
		}
	}
	slices.SortFunc(unreached, func(a, b unreachedReport) int {
		return cmp.Or(cmp.Compare(a.Site, b.Site), cmp.Compare(a.Message, b.Message), cmp.Compare(a.Kind, b.Kind))
	})
	return faults, effects, props, sites, unreached
}

// missedGoals lists the goals r missed, one line each: a property never
// true, a Buggify site that never fired, a goal found in the source that
// no seed reached.
func missedGoals(r sweepReport) []string {
	var missed []string
	for _, p := range r.Properties {
		if p.Missed != "" {
			missed = append(missed, fmt.Sprintf("%s %q at %s was never true", p.Kind, p.Message, p.Site))
		}
	}
	for _, u := range r.Unreached {
		if u.Goal {
			missed = append(missed, fmt.Sprintf("%s %q at %s was never reached", u.Kind, u.Message, u.Site))
		}
	}
	for _, b := range r.Buggify {
		if b.Missed != "" {
			missed = append(missed, fmt.Sprintf("Buggify %q at %s never fired", b.Name, b.Site))
		}
	}
	return missed
}

// faultLine renders counts sorted by key: "clog 12, partition 41".
func faultLine[K ~string](faults map[K]uint64) string {
	kinds := make([]K, 0, len(faults))
	for k := range faults { // sorted below
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, faults[k])
	}
	return strings.Join(parts, ", ")
}

// printCoverage prints the coverage part of the text summary.
func printCoverage(w io.Writer, r sweepReport) {
	if len(r.Faults) > 0 {
		fmt.Fprintf(w, "faults injected: %s\n", faultLine(r.Faults))
		effects := "none (no fault held, delayed or dropped a send, refused a dial, reset a connection or failed a storage operation)"
		if len(r.Effects) > 0 {
			effects = faultLine(r.Effects)
		}
		fmt.Fprintf(w, "fault effects: %s\n", effects)
	}
	if len(r.Properties) > 0 {
		fmt.Fprintf(w, "properties (%d):\n", len(r.Properties))
		for _, p := range r.Properties {
			fmt.Fprintf(w, "  %-19s %q at %s: reached in %d, true in %d, false in %d%s\n",
				p.Kind, p.Message, p.Site, p.SeedsReached, p.SeedsTrue, p.SeedsFalse, mark(p.Missed != "", "  <- NEVER TRUE"))
		}
	}
	if len(r.Unreached) > 0 {
		fmt.Fprintf(w, "found in the source, never reached (%d):\n", len(r.Unreached))
		for _, u := range r.Unreached {
			fmt.Fprintf(w, "  %-19s %q at %s%s\n", u.Kind, u.Message, u.Site, mark(u.Goal, "  <- NEVER REACHED"))
		}
	}
	if len(r.Buggify) > 0 {
		fmt.Fprintf(w, "Buggify sites (%d):\n", len(r.Buggify))
		for _, b := range r.Buggify {
			fmt.Fprintf(w, "  %q at %s: reached in %d, enabled in %d, fired in %d%s\n",
				b.Name, b.Site, b.SeedsReached, b.SeedsEnabled, b.SeedsFired, mark(b.Missed != "", "  <- NEVER FIRED"))
		}
	}
}

// mark returns text when on, else "".
func mark(on bool, text string) string {
	if on {
		return text
	}
	return ""
}

// coverFile names a new cover file for one test process.
func (s *sweep) coverFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.covers++
	return filepath.Join(s.tmp, fmt.Sprintf("cover%d.jsonl", s.covers))
}

// mergeCover merges a test process's cover file into the sweep's
// coverage once the process has ended.
func (s *sweep) mergeCover(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.cover.readCoverFile(path); err != nil {
		fmt.Fprintf(s.stderr, "simrt sweep: %v\n", err)
	}
}
