package simtest_test

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
	"github.com/simrt/simrt/simtest/coverfile"
)

// TestHelperFaults sweeps a partition and a Sometimes true on some seeds.
func TestHelperFaults(t *testing.T) {
	if !helper(t) {
		return
	}
	a, b := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2")
	simtest.Explore(t, deterministic.Config{}, func(t *testing.T, ctx *deterministic.Context) {
		ca := ctx.WithHost(a) // declare the hosts: a partition of unused addresses is an error
		ctx.WithHost(b)
		if err := ctx.Network().Partition(a, b); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ca.Dial(netip.AddrPortFrom(b, 80)); err == nil {
			t.Fatal("dial across the partition succeeded")
		}
		simrt.Sometimes(ctx, ctx.Rand().IntN(2) == 0, "helper: heads")
	})
}

// TestSweepReportsFaultsAndProperties: the summary of a sweep counts the
// faults its runs injected, and -simrt.coverfile writes them with the
// properties as JSON.
func TestSweepReportsFaultsAndProperties(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cover.jsonl")
	out, ok := runHelperStatus(t, "TestHelperFaults", "-simrt.seeds=0..9", "-simrt.coverfile="+path)
	if !ok {
		t.Fatalf("the sweep failed:\n%s", out)
	}
	for _, want := range []string{"simrt: faults injected: cut 20, partition 10; their effects: dials_refused 10 (over 10 runs)",
		`Sometimes           "helper: heads" at simtest/coverfile_test.go:`} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("coverage file: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("coverage file has %d lines, want 1:\n%s", len(lines), data)
	}
	var rec coverfile.Record
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("coverage file: %v:\n%s", err, data)
	}
	if rec.Test != "TestHelperFaults" || rec.Runs != 10 || rec.Faults["partition"] != 10 || rec.Faults["cut"] != 20 ||
		rec.Effects["dials_refused"] != 10 || len(rec.Effects) != 1 {
		t.Errorf("record = %+v, want test TestHelperFaults, 10 runs, partition 10, cut 20, effects dials_refused 10", rec)
	}
	if len(rec.Properties) != 1 {
		t.Fatalf("record has properties %+v, want one", rec.Properties)
	}
	p := rec.Properties[0]
	if p.Kind != "Sometimes" || p.Message != "helper: heads" || p.Runs != 10 || p.TrueRuns == 0 || p.TrueRuns == 10 ||
		!strings.HasSuffix(p.File, "coverfile_test.go") || p.Line == 0 {
		t.Errorf("property = %+v, want Sometimes \"helper: heads\" in coverfile_test.go, reached in 10, true in some", p)
	}
	// The sites found in the source that no run reached are in the record
	// too, so that simrt sweep can report them over all its processes.
	var unreached bool
	for _, u := range rec.Unreached {
		unreached = unreached || (u.Kind == "Buggify" && u.Message == "early_ack" && u.File == "simtest/branch_test.go" && u.Line > 0)
	}
	if !unreached {
		t.Errorf("record's unreached sites %+v lack Buggify \"early_ack\" at simtest/branch_test.go", rec.Unreached)
	}
}
