package simtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/telemetry/trace"
)

func TestTraceFlagWritesTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	st, _ := resolve(func(*setting) (string, bool) { return "", false })
	runSeed(t, t.Name(), deterministic.Config{Seed: 2}, st, path, pickPeerSorted)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f trace.File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("trace does not parse: %v", err)
	}
	slices, tracks := 0, map[int]bool{}
	for _, e := range f.TraceEvents {
		if e.Ph == "X" {
			slices++
			tracks[e.Tid] = true
		}
	}
	if slices == 0 || len(tracks) != 33 { // the root and 32 peers
		t.Errorf("%d slices on %d tracks, want some on 33", slices, len(tracks))
	}
	if got := traceName("out.json", 17, 100); got != "out.seed17.json" {
		t.Errorf("traceName = %q", got)
	}
}
