package realtime

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/rtapi"
)

// StopOnSignal wires process signals to graceful shutdown in one call: the
// first of sigs (SIGINT and SIGTERM when none are given) that the process
// receives calls ctx.Stop with the value 128 plus the signal's number (130
// for SIGINT, 143 for SIGTERM) and the given timeout, from a task named
// after ctx plus "_signals". Until then the process does not die of those
// signals. A task waiting on ctx.Stopped() then does its cleanup, and the
// root can return.
//
// The wiring ends after that first signal, when the task owning ctx ends,
// or when the returned function is called (which may be done more than
// once); the signals then get their default behaviour back.
func StopOnSignal(ctx simrt.Context, timeout time.Duration, sigs ...os.Signal) (cancel func()) {
	if len(sigs) == 0 {
		sigs = []os.Signal{os.Interrupt, syscall.SIGTERM}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	got := simrt.NewOneshot[os.Signal]()
	quit := make(chan struct{})
	var bridge sync.WaitGroup
	bridge.Go(func() {
		select {
		case s := <-ch:
			got.Send(s)
		case <-quit:
		}
	})
	var once sync.Once
	unwire := func() {
		once.Do(func() {
			signal.Stop(ch)
			close(quit)
			bridge.Wait()
		})
	}
	abort := ctx.Child("signals").SpawnTask(rtapi.TaskFuncs{RunFunc: func(p rtapi.Plumbing) {
		c := p.(simrt.Context)
		s, err := got.Recv(c)
		unwire()
		if err != nil {
			return
		}
		value := 0
		if n, ok := s.(syscall.Signal); ok {
			value = 128 + int(n)
		}
		_ = c.Stop(value, timeout)
	}, DoneFunc: func(error) { unwire() }})
	return abort.Abort
}
