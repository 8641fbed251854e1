package main

import (
	"slices"
	"testing"
)

// TestGoTestArgsPackagesFirst: a -simrt.* flag ahead of the packages made
// go test hand the packages to the test binary and test "." instead.
func TestGoTestArgsPackagesFirst(t *testing.T) {
	patterns, flags, bin := splitTestArgs([]string{"-run", "TestX", "-simrt.seeds=0..9", "./sub", "-v", "-args", "-simrt.leaks=false"})
	if !slices.Equal(patterns, []string{"./sub"}) || !slices.Equal(flags, []string{"-run", "TestX", "-simrt.seeds=0..9", "-v"}) || !slices.Equal(bin, []string{"-simrt.leaks=false"}) {
		t.Fatalf("split: %q %q %q", patterns, flags, bin)
	}
	got := goTestArgs([]string{"-overlay=o.json"}, patterns, flags, bin)
	want := []string{"test", "-overlay=o.json", "./sub", "-run", "TestX", "-simrt.seeds=0..9", "-v", "-args", "-simrt.leaks=false"}
	if !slices.Equal(got, want) {
		t.Errorf("go %q, want go %q", got, want)
	}
}
