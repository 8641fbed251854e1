// Package coverfile is the format of a -simrt.coverfile: one JSON
// Record per line, each what one simtest.Explore sweep of one test process
// covered (runs, faults and their effects, properties, Buggify sites, and
// the calls found in the source that no run reached).
//
// simtest writes the lines; the simrt command (cmd/simrt) reads them back
// from each of its processes and merges them. Both use these types, so the
// format has one home. The package imports nothing of simrt and registers
// no flags.
//
// The smallest use, reading a file:
//
//	sc := bufio.NewScanner(f)
//	for sc.Scan() {
//		var rec coverfile.Record
//		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
//			return err
//		}
//		// ... merge rec ...
//	}
package coverfile

// Record is one line of a -simrt.coverfile: what one simtest.Explore
// sweep covered. simrt sweep reads these lines back from each of its
// processes and merges them.
type Record struct {
	// Test is the name of the test that called Explore.
	Test string `json:"test"`
	// Runs is the number of runs (seeds) the sweep added.
	Runs uint64 `json:"runs"`
	// Faults counts the faults injected over all runs, by kind (see
	// deterministic.Context.Faults).
	Faults map[string]uint64 `json:"faults"`
	// Effects sums what the faults did over all runs, by counter (see
	// deterministic.Coverage.Effects): "sends_held", "ops_failed", ...
	Effects map[string]uint64 `json:"effects"`
	// Properties are the properties some run reached.
	Properties []Property `json:"properties"`
	// Buggify are the Buggify sites some run called.
	Buggify []Buggify `json:"buggify"`
	// Unreached are the calls found in the package's source (with a
	// constant message or site name) that no run reached. simrt sweep
	// reports a site as never reached when every process's record lists it.
	Unreached []Site `json:"unreached"`
}

// Site is a call of a property function or of Buggify found in the
// source that no run reached.
type Site struct {
	Kind    string `json:"kind"`    // "Always", ..., or "Buggify"
	Message string `json:"message"` // the message, or Buggify's site name
	File    string `json:"file"`    // the last directory and the file name
	Line    int    `json:"line"`    // the call's first line
}

// Property is one property of a Record, as in
// deterministic.PropertyCoverage.
type Property struct {
	Kind        string `json:"kind"`
	Message     string `json:"message"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Runs        uint64 `json:"runs"`
	TrueRuns    uint64 `json:"true_runs"`
	FalseRuns   uint64 `json:"false_runs"`
	Evaluations uint64 `json:"evaluations"`
}

// Buggify is one Buggify site of a Record, as in
// deterministic.BuggifyCoverage.
type Buggify struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Runs        uint64 `json:"runs"`
	EnabledRuns uint64 `json:"enabled_runs"`
	FiredRuns   uint64 `json:"fired_runs"`
	Calls       uint64 `json:"calls"`
	Fires       uint64 `json:"fires"`
}
