package escape_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/simrt/simrt/cmd/simrtvet/escape"
)

// TestClockFixes checks the clock diagnostics and their fixes against
// testdata/src/clock/clock.go.golden.
func TestClockFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), escape.Analyzer, "clock")
}

// TestMapRangeFixes checks the map-order heuristic (what it reports and
// what it leaves) and its sorted-keys fix against maps1.go.golden.
func TestMapRangeFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), escape.Analyzer, "maps1")
}

// TestDiagnostics runs the cases without fixes, one package each:
// goroutines, native channels, select, sync locks and waits,
// runtime.Gosched and unseeded randomness (block); file and network I/O,
// and what does none (io); a package without simrt, not checked at all
// (plain); //simrt:allow on the line and above it, its required reason, and
// //simrt:allow-file above the package clause (allow, allowfile); in test
// files, only the functions that take a simrt context (harness). One Run
// loads them all at once.
func TestDiagnostics(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), escape.Analyzer, "block", "io", "plain", "allow", "allowfile", "harness")
}
