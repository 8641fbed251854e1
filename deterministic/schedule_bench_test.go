package deterministic

import (
	"testing"

	"github.com/simrt/simrt"
)

// BenchmarkSchedulingPoint is one uncontended Lock and Unlock (two
// scheduling points) under each yield probability: the cost of the points
// themselves, and of the yields the default makes.
//
//	go test -run '^$' -bench SchedulingPoint ./deterministic
func BenchmarkSchedulingPoint(b *testing.B) {
	for _, tc := range []struct {
		name string
		p    float64
	}{{"NoYield", NoYield}, {"default", 0}, {"always", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			New(Config{Scheduling: Scheduling{YieldProbability: tc.p}}).Start(func(ctx *Context) {
				var mu simrt.Mutex
				for b.Loop() {
					mu.Lock(ctx)
					mu.Unlock()
				}
			})
		})
	}
}
