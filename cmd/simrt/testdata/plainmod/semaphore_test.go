package plainmod

import (
	"context"
	"runtime"
	"testing"

	"golang.org/x/sync/semaphore"
)

// TestSemaphore contends for golang.org/x/sync/semaphore, a dependency
// from the module cache whose Acquire parks in a select: it must be
// rewritten too, or a waiting goroutine blocks natively.
func TestSemaphore(t *testing.T) {
	sem := semaphore.NewWeighted(1)
	ctx := context.Background()
	var order []int
	done := make(chan bool)
	for i := 0; i < 3; i++ {
		go func(i int) {
			if err := sem.Acquire(ctx, 1); err != nil {
				t.Error(err)
			}
			order = append(order, i)
			runtime.Gosched()
			sem.Release(1)
			done <- true
		}(i)
	}
	for i := 0; i < 3; i++ {
		<-done
	}
	t.Logf("semaphore order %v", order)
}
