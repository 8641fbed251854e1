package harness

import (
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// explore stands for simtest.Explore: it calls root with a context.
func explore(t *testing.T, root func(t *testing.T, ctx simrt.Context)) {}

// The harness may time and parallelise runs: not reported.
func BenchmarkRuns(b *testing.B) {
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {})
	wg.Wait()
	_ = time.Since(start)
}

// The root runs under the simulator: reported.
func TestRoot(t *testing.T) {
	explore(t, func(t *testing.T, ctx simrt.Context) {
		go Run(ctx)    // want `go statement`
		_ = time.Now() // want `time.Now reads the wall clock`
		func() {
			time.Sleep(time.Millisecond) // want `time.Sleep sleeps in real time`
		}()
	})
}

// A helper that takes a context runs under the simulator too.
func helper(ctx simrt.Context, c chan int) {
	<-c // want `native channel receive`
}
