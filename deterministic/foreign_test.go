package deterministic_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A plain goroutine that makes a blocking call through a task's Context
// while no task runs (here: while the executor runs a timer's callback,
// which waits for it) panics saying that a goroutine simrt did not start
// used a primitive of a task's Context, and naming the goroutine's
// function, instead of "deterministic: blocking call made outside a task
// of this runtime".
func TestBlockingCallFromPlainGoroutineIsNamed(t *testing.T) {
	var msg string
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		never := simrt.NewSignal()
		ready, got := make(chan struct{}), make(chan any, 1)
		go func() { // a library's goroutine
			<-ready
			defer func() { got <- recover() }()
			never.Wait(ctx)
		}()
		ctx.AfterFunc(time.Millisecond, func() { // in the executor: no task runs
			close(ready)
			msg = fmt.Sprint(<-got)
		})
		ctx.Sleep(2 * time.Millisecond)
	})
	for _, want := range []string{
		"simrt: a blocking call was made outside a task by a goroutine that simrt did not start (github.com/simrt/simrt/deterministic_test.TestBlockingCallFromPlainGoroutineIsNamed.",
		"or a primitive of a task's Context",
		`docs/PORTING.md, "What does not port"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("panic %q\nlacks %q", msg, want)
		}
	}
}
