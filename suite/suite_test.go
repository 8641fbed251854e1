package suite_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/suite"
)

// none runs nothing: the cases below do not use a runtime.
var none = suite.Runtime{Run: func(suite.T, suite.Options, func(simrt.Context)) {}}

// Test reports each failed case, by name, with what it reported and its
// rule; passing and skipped cases report nothing; a Fatal or a panic ends
// only its case; cleanups run last-registered first, and TempDir is removed.
func TestErrorForm(t *testing.T) {
	var order []string
	var dir string
	err := suite.Test(none, []suite.Case{
		{Name: "Passes", Check: func(t suite.T) { t.Log("quiet") }},
		{Name: "Skips", Check: func(t suite.T) { t.Skip("not here"); t.Error("ran past Skip") }},
		{Name: "Errs", Rule: "the rule", Check: func(t suite.T) {
			t.Errorf("first %d", 1)
			t.Error("second")
		}},
		{Name: "Fatals", Check: func(t suite.T) {
			t.Cleanup(func() { order = append(order, "a") })
			t.Cleanup(func() { order = append(order, "b") })
			dir = t.TempDir()
			t.Fatal("stop")
			t.Error("ran past Fatal")
		}},
		{Name: "Panics", Check: func(suite.T) { panic("boom") }},
	})
	if err == nil {
		t.Fatal("Test returned nil; three cases failed")
	}
	msg := err.Error()
	for _, want := range []string{"Errs:\n\tfirst 1\n\tsecond\n\trule: the rule", "Fatals:\n\tstop", "Panics:\n\tpanic: boom"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, bad := range []string{"Passes", "Skips", "ran past"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error mentions %q:\n%s", bad, msg)
		}
	}
	if !slices.Equal(order, []string{"b", "a"}) {
		t.Errorf("cleanups ran in order %v, want [b a]", order)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("TempDir %q still there after its case: %v", dir, err)
	}
	skipping := none
	skipping.Skip = map[string]string{"Skipped": "in the works"}
	if err := suite.Test(skipping, []suite.Case{{Name: "Skipped", Check: func(t suite.T) { t.Error("ran") }}}); err != nil {
		t.Errorf("a case Runtime.Skip lists ran: %v", err)
	}
}

// Run runs each case as a subtest of its name.
func TestRunSubtests(t *testing.T) {
	var names []string
	suite.Run(t, none, []suite.Case{
		{Name: "One", Check: func(t suite.T) { names = append(names, t.Name()) }},
		{Name: "Two", Check: func(t suite.T) { names = append(names, t.Name()) }},
	})
	if want := []string{"TestRunSubtests/One", "TestRunSubtests/Two"}; !slices.Equal(names, want) {
		t.Errorf("subtests %v, want %v", names, want)
	}
}
