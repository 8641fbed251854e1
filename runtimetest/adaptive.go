package runtimetest

import (
	"github.com/simrt/simrt"
)

var adaptiveCases = []testCase{
	{"StrategyAdaptiveChoice", "simrt.Adaptive runs the parallel form only when the strategy would split the work across more than one worker (parallelism and item count both above 1), on every runtime alike", strategyAdaptiveChoice},
}

func strategyAdaptiveChoice(t T, r Runner) {
	r.run(t, Options{}, func(ctx simrt.Context) {
		for _, c := range []struct {
			p, n int
			want string
		}{
			{1, 2, "serial"},
			{1, 100, "serial"},
			{3, 1, "serial"},
			{3, 0, "serial"},
			{3, 2, "parallel"},
			{4, 100, "parallel"},
		} {
			s := ctx.Strategy(c.p)
			got := simrt.Adaptive(s, c.n, func() string { return "serial" }, func() string { return "parallel" })
			if got != c.want {
				t.Errorf("Adaptive(parallelism %d, %d items) chose %s, want %s", c.p, c.n, got, c.want)
			}
		}
	})
}
