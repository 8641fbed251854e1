package deterministic

import "github.com/simrt/simrt"

// inline is the simulator's Strategy: it runs all work on the calling task,
// in order, whatever parallelism it plans for.
type inline struct {
	p int // the parallelism reported to planners; values below 1 mean 1
}

var _ simrt.Strategy = inline{}

// Parallelism implements simrt.Strategy.Parallelism.
func (s inline) Parallelism() int { return max(1, s.p) }

// ForEach implements simrt.Strategy.ForEach by calling f(0), ..., f(n-1)
// in order.
func (s inline) ForEach(n int, f func(int)) {
	for i := range n {
		f(i)
	}
}
