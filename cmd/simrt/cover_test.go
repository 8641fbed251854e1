package main

import (
	"strings"
	"testing"

	"github.com/simrt/simrt/fault"
)

// TestCoverFileSumsOldFaultSpellings: a cover file written before the
// storage's disk faults took the nemesis's names ("disk_fail") sums with
// one written after ("disk-fail"), under the one typed name.
func TestCoverFileSumsOldFaultSpellings(t *testing.T) {
	var c coverage
	old := `{"faults":{"disk_fail":2,"partition":1},"effects":{"ops_failed":2}}`
	cur := `{"faults":{"disk-fail":3,"newer_kind":1},"effects":{"ops_failed":3}}`
	if err := c.read(strings.NewReader(old + "\n" + cur + "\n")); err != nil {
		t.Fatal(err)
	}
	faults, effects, _, _, _ := c.lists()
	want := fault.Counts{fault.DiskFail: 5, fault.Partition: 1, "newer_kind": 1}
	if len(faults) != len(want) {
		t.Fatalf("faults %v, want %v", faults, want)
	}
	for k, n := range want {
		if faults[k] != n {
			t.Fatalf("faults %v, want %v", faults, want)
		}
	}
	if effects[fault.OpsFailed] != 5 {
		t.Fatalf("effects %v, want ops_failed 5", effects)
	}
	if got := faultLine(faults); got != "disk-fail 5, newer_kind 1, partition 1" {
		t.Fatalf("faultLine = %q", got)
	}
}
