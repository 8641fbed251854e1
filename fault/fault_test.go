package fault_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/simrt/simrt/fault"
)

// TestParseEveryName: every name parses back to itself, and has a family.
func TestParseEveryName(t *testing.T) {
	seen := map[fault.Name]bool{}
	for _, n := range fault.Names() {
		if seen[n] {
			t.Fatalf("%q listed twice", n)
		}
		seen[n] = true
		got, err := fault.Parse(n.String())
		if err != nil || got != n {
			t.Errorf("Parse(%q) = %q, %v", n, got, err)
		}
		if n.Family() == 0 || !n.Known() {
			t.Errorf("%q: no family", n)
		}
	}
}

// TestParseOldSpellings: the storage's disk-fault counts were spelled
// "disk_fail" and so on before they took the nemesis's names; files
// written then still parse, to the current name.
func TestParseOldSpellings(t *testing.T) {
	for old, want := range map[string]fault.Name{
		"disk_fail": fault.DiskFail, "disk_full": fault.DiskFull,
		"disk_readonly": fault.DiskReadOnly, "disk_slow": fault.DiskSlow,
	} {
		if got, err := fault.Parse(old); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", old, got, err, want)
		}
		if got := fault.Canonical(old); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", old, got, want)
		}
	}
	if _, err := fault.Parse("disk fail"); err == nil {
		t.Error("Parse of an unknown name: no error")
	}
	if got := fault.Canonical("from_a_newer_tool"); got != "from_a_newer_tool" {
		t.Errorf("Canonical of an unknown name = %q, want it kept", got)
	}
}

// TestFamilies: each family holds the names it should.
func TestFamilies(t *testing.T) {
	for n, f := range map[fault.Name]fault.Family{
		fault.Partition: fault.Network, fault.LinkLoss: fault.Network,
		fault.Kill: fault.Process, fault.PowerLoss: fault.Process, fault.Crash: fault.Process,
		fault.ClockDrift: fault.Clock, fault.NodeClock: fault.Clock,
		fault.DiskFail: fault.Disk, fault.StorageOpen: fault.Disk, fault.CrashTornWrite: fault.Disk,
	} {
		if n.Family() != f {
			t.Errorf("%s: family %v, want %v", n, n.Family(), f)
		}
	}
	if fault.Name("nope").Family() != 0 {
		t.Error("an unknown name has a family")
	}
}

// TestCounts: Add skips zeros and allocates a nil map, AddAll sums,
// Sorted and String order by name, and JSON keys are the names.
func TestCounts(t *testing.T) {
	var c fault.Counts
	c.Add(fault.Cut, 0)
	if c != nil {
		t.Fatalf("adding zero allocated: %v", c)
	}
	c.Add(fault.Partition, 2)
	c.AddAll(fault.Counts{fault.Partition: 1, fault.Clog: 4, fault.Cut: 0})
	want := []fault.Count{{Name: fault.Clog, N: 4}, {Name: fault.Partition, N: 3}}
	if got := c.Sorted(); !slices.Equal(got, want) {
		t.Fatalf("Sorted() = %v, want %v", got, want)
	}
	if got := c.String(); got != "clog 4, partition 3" {
		t.Fatalf("String() = %q", got)
	}
	b, err := json.Marshal(c)
	if err != nil || string(b) != `{"clog":4,"partition":3}` {
		t.Fatalf("JSON %s, %v", b, err)
	}
	if got := fault.NonZero(fault.Tally{Counter: fault.SendsHeld}, fault.Tally{Counter: fault.OpsFailed, N: 1}); len(got) != 1 || got[0].Counter != fault.OpsFailed {
		t.Fatalf("NonZero = %v", got)
	}
}
