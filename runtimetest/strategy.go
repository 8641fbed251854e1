package runtimetest

import (
	"slices"
	"sync/atomic"

	"github.com/simrt/simrt"
)

var strategyCases = []testCase{
	{"Strategy", "a strategy reports the parallelism asked for, calls ForEach's function once per index, and Map and Fold give the sequential result", strategy},
	{"NestedStrategyRunsInline", "a strategy of parallelism 1 made inside another strategy's work runs and returns its result", nestedStrategyRunsInline},
}

func strategy(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		s := ctx.Strategy(4)
		if p := s.Parallelism(); p != 4 {
			t.Errorf("Parallelism() = %d, want 4", p)
		}
		in := make([]int, 10_000)
		for i := range in {
			in[i] = i
		}
		sum := simrt.Fold(s, in, func() int { return 0 },
			func(acc, v int) int { return acc + v },
			func(a, b int) int { return a + b })
		if sum != 49_995_000 {
			t.Errorf("Fold sum over 0..9999 = %d, want 49995000", sum)
		}
		doubled := simrt.Map(s, in, func(v int) int { return 2 * v })
		for i, v := range doubled {
			if v != 2*i {
				t.Errorf("Map: element %d = %d, want %d", i, v, 2*i)
				break
			}
		}
		calls := make([]atomic.Int32, 1000)
		s.ForEach(len(calls), func(i int) { calls[i].Add(1) })
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Errorf("ForEach called index %d %d times, want once", i, n)
				break
			}
		}
	})
}

func nestedStrategyRunsInline(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		outer := ctx.Strategy(4)
		got := simrt.Map(outer, []int{0}, func(int) []int {
			inner := ctx.Strategy(1)
			return simrt.Map(inner, []int{0, 1}, func(v int) int { return v + 1 })
		})
		if len(got) != 1 || !slices.Equal(got[0], []int{1, 2}) {
			t.Errorf("nested Map = %v, want [[1 2]]", got)
		}
	})
}
