package simtest

import "testing"

// TestGoalsPlural: the summary counts "1 goal", not "1 goals".
func TestGoalsPlural(t *testing.T) {
	for n, want := range []string{"0 goals", "1 goal", "2 goals"} {
		if got := goals(n); got != want {
			t.Errorf("goals(%d) = %q, want %q", n, got, want)
		}
	}
}
