package simtest

import "testing"

// BenchmarkScanSites is the cost Explore pays once per sweep to find the
// property calls of simtest's own tests and of the packages they import.
func BenchmarkScanSites(b *testing.B) {
	for b.Loop() {
		scanSites(".")
	}
}
