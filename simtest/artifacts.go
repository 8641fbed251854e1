package simtest

import (
	"flag"
	"path/filepath"
	"strconv"
	"testing"
)

// Go's testing integration (Go 1.25 T.Attr, Go 1.26 T.ArtifactDir).
//
// A failing seed's test (the seed's subtest under Explore) carries three
// test attributes, which go test -json reports as "attr" events and -v
// prints as "=== ATTR" lines, for a CI system to pick up without parsing
// the report: simrt.seed, simrt.replay (the report's replay command) and
// simrt.shrink (that command with -simrt.shrink).
//
// With go test's -artifacts flag, the files simtest writes for a test go
// to the test's artifact directory (T.ArtifactDir, under -outputdir's
// _artifacts) instead of the working or temporary directory: a relative
// -simrt.trace, -simrt.record or -simrt.shrinkout name is taken in it, and
// a failing seed's nemesis schedule is written there.

// markFailure gives t, a failing seed's test, the seed, replay and shrink
// attributes. replay is the report's replay command.
func markFailure(t *testing.T, seed uint64, replay string) {
	t.Attr("simrt.seed", strconv.FormatUint(seed, 10))
	t.Attr("simrt.replay", replay)
	t.Attr("simrt.shrink", replay+" -simrt.shrink")
}

// artifactsOn reports whether go test runs with -artifacts.
func artifactsOn() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}

// inArtifacts returns where to write the file path asked for by a flag:
// under t's artifact directory when go test runs with -artifacts and path
// is relative, else path itself ("" stays "").
func inArtifacts(t *testing.T, path string) string {
	if path == "" || filepath.IsAbs(path) || !artifactsOn() {
		return path
	}
	return filepath.Join(t.ArtifactDir(), path)
}
