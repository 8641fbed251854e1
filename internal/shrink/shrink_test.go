package shrink

import (
	"slices"
	"testing"
)

// contains reports whether s holds every one of want.
func contains(s []int, want ...int) bool {
	for _, w := range want {
		if !slices.Contains(s, w) {
			return false
		}
	}
	return true
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestMinimizeFindsTheNeededItems(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		need []int
	}{
		{"one of one", 1, []int{0}},
		{"one of many", 100, []int{37}},
		{"two far apart", 100, []int{3, 96}},
		{"three adjacent", 64, []int{20, 21, 22}},
		{"first and last", 9, []int{0, 8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Minimize(seq(c.n), func(s []int) bool { return contains(s, c.need...) })
			if !slices.Equal(got, c.need) {
				t.Fatalf("Minimize = %v, want %v", got, c.need)
			}
		})
	}
}

func TestMinimizeEmptyFailure(t *testing.T) {
	got := Minimize(seq(10), func([]int) bool { return true })
	if len(got) != 0 {
		t.Fatalf("a failure that needs nothing shrank to %v, want empty", got)
	}
	if got := Minimize([]int(nil), func([]int) bool { return true }); len(got) != 0 {
		t.Fatalf("Minimize(nil) = %v", got)
	}
}

func TestMinimizeKeepsOrderAndIsOneMinimal(t *testing.T) {
	// Fails when the list holds an ascending pair of items whose sum is
	// 50 and at least three even numbers: several minimal answers exist,
	// and whatever comes out must be 1-minimal and in input order.
	fails := func(s []int) bool {
		pair, even := false, 0
		for i, a := range s {
			if a%2 == 0 {
				even++
			}
			for _, b := range s[i+1:] {
				if a+b == 50 {
					pair = true
				}
			}
		}
		return pair && even >= 3
	}
	in := seq(60)
	got := Minimize(in, fails)
	if !fails(got) {
		t.Fatalf("result %v does not fail", got)
	}
	if !slices.IsSorted(got) {
		t.Fatalf("result %v lost the input order", got)
	}
	for i := range got {
		if fails(slices.Delete(slices.Clone(got), i, i+1)) {
			t.Fatalf("result %v is not 1-minimal: item %d can go", got, got[i])
		}
	}
}

func TestMinimizeInputThatPasses(t *testing.T) {
	in := seq(5)
	got := Minimize(in, func(s []int) bool { return len(s) > 5 })
	if !slices.Equal(got, in) {
		t.Fatalf("Minimize of a passing input = %v, want it unchanged", got)
	}
}

func TestMinimizeWithinBudget(t *testing.T) {
	calls := 0
	fails := func(s []int) bool { calls++; return contains(s, 3, 500) }
	got, tests := MinimizeWithin(seq(1000), fails, 12)
	if tests != 12 || calls != 12 {
		t.Fatalf("budget of 12 made %d tests (%d calls)", tests, calls)
	}
	if !fails(got) {
		t.Fatalf("budgeted result %v does not fail", got)
	}
	if len(got) >= 1000 {
		t.Fatalf("12 tests did not shrink at all: %d items", len(got))
	}
}

func TestMinimizeDoesNotAliasCandidates(t *testing.T) {
	in := seq(16)
	got := Minimize(in, func(s []int) bool {
		ok := contains(s, 5)
		for i := range s {
			s[i] = -1 // a careless predicate scribbling on its argument
		}
		return ok
	})
	if !slices.Equal(in, seq(16)) {
		t.Fatalf("the predicate's writes reached the input: %v", in)
	}
	if !slices.Equal(got, []int{5}) {
		t.Fatalf("the predicate's writes reached the result: %v", got)
	}
}

func TestMinimizeTestCount(t *testing.T) {
	// One needed item out of 1024 costs about 2*log2(n) tests, not n.
	_, tests := MinimizeWithin(seq(1024), func(s []int) bool { return contains(s, 700) }, 0)
	if tests > 40 {
		t.Fatalf("finding one item of 1024 took %d tests", tests)
	}
}
