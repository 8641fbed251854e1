package deterministic_test

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/simnet"
)

// The newer primitives say what a task parked on them waits for, too:
// WaitGroup.Wait, RWMutex RLock and Lock, Once.Do behind a concurrent Do,
// Ticker.Recv, TaskContext.Wait, unbuffered channels (plain and in a
// Select), and a network Send waiting for the peer to drain.
func TestStallDescribesNewerPrimitives(t *testing.T) {
	var sendLine, recvLine, tickerLine int
	// NoYield: the expected order of parks assumes tasks switch only where they park.
	v := verdictOf(t, deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}, func(ctx *deterministic.Context) {
		var wg simrt.WaitGroup
		wg.Add(2)
		var held, read simrt.RWMutex
		held.Lock(ctx)  // a writer holds it
		read.RLock(ctx) // a reader holds it
		var once simrt.Once
		never := simrt.NewSignal()
		gc, cancel := simrt.GoContext(ctx)
		defer cancel()
		var sendCh, recvCh *simrt.Chan[int]
		sendCh, sendLine = simrt.NewChan[int](0), callerLine()
		recvCh, recvLine = simrt.NewChan[int](0), callerLine()
		lis, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:8080"))
		if err != nil {
			t.Fatal(err)
		}
		spawn := func(name string, f func(ctx simrt.Context)) *simrt.Handle[int] {
			return simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int { f(ctx); return 0 })
		}
		spawn("waitgroup", func(ctx simrt.Context) { wg.Wait(ctx) })
		spawn("reader", func(ctx simrt.Context) { held.RLock(ctx) })
		spawn("writer", func(ctx simrt.Context) { read.Lock(ctx) })
		// A reader arriving after the writer waits behind it.
		spawn("late_reader", func(ctx simrt.Context) { ctx.Sleep(time.Millisecond); read.RLock(ctx) })
		spawn("once_first", func(ctx simrt.Context) { once.Do(ctx, func() { never.Wait(ctx) }) })
		spawn("once_second", func(ctx simrt.Context) { ctx.Sleep(time.Millisecond); once.Do(ctx, func() {}) })
		spawn("ticker", func(ctx simrt.Context) {
			var tk *simrt.Ticker
			tk, tickerLine = simrt.NewTicker(ctx, time.Second), callerLine()
			tk.Stop() // a stopped ticker's Recv waits until aborted
			tk.Recv(ctx)
		})
		spawn("ctxwaiter", func(ctx simrt.Context) { gc.Wait(ctx) })
		spawn("sender", func(ctx simrt.Context) { sendCh.Send(ctx, 1) })
		spawn("receiver", func(ctx simrt.Context) { recvCh.Recv(ctx) })
		spawn("selector", func(ctx simrt.Context) {
			simrt.Select(ctx, recvCh.OnRecv(nil), sendCh.OnSend(2, nil), wg.OnWait(nil), gc.OnDone(nil))
		})
		spawn("server", func(ctx simrt.Context) {
			if _, _, _, err := lis.Accept(); err != nil { // and never reads
				t.Error(err)
				return
			}
			never.Wait(ctx)
		})
		spawn("netsender", func(ctx simrt.Context) {
			sink, _, err := ctx.Dial(lis.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			sink.Send(make([]byte, simnet.DefaultBufferSize+70000))
		})
		never.Wait(ctx)
	})
	if !errors.Is(v, deterministic.ErrStalled) {
		t.Fatalf("verdict %v; want ErrStalled", v.Err)
	}
	text := v.Error()
	sendSite := fmt.Sprintf("unbuffered chan made at report_prims_test.go:%d", sendLine)
	recvSite := fmt.Sprintf("unbuffered chan made at report_prims_test.go:%d", recvLine)
	for _, c := range []struct{ task, want string }{
		{`"waitgroup"`, ": Wait of a simrt.WaitGroup (counter 2)"},
		{`"reader"`, ": RLock of a simrt.RWMutex (writer task <root> (#0))"},
		{`"writer"`, ": Lock of a simrt.RWMutex (1 reader)"},
		{`"late_reader"`, ": RLock of a simrt.RWMutex (1 reader, writer waiting)"},
		{`"once_second"`, ": Do of a simrt.Once, waiting for a concurrent Do to end"},
		{`"ticker"`, fmt.Sprintf(": Recv on a simrt.Ticker made at report_prims_test.go:%d", tickerLine)},
		{`"ctxwaiter"`, ": Wait on a simrt.GoContext, until it is cancelled"},
		{`"sender"`, ": send on " + sendSite},
		{`"receiver"`, ": receive on " + recvSite},
		{`"selector"`, ": Select on: receive on " + recvSite + "; send on " + sendSite +
			"; Wait of a simrt.WaitGroup (counter 2); Wait on a simrt.GoContext, until it is cancelled"},
		{`"netsender"`, ": Send at 127.0.0.1:"},
		{`"netsender"`, " to 127.0.0.1:8080: waiting for the peer to take 70000 bytes"},
	} {
		if line := parkedLine(t, text, c.task); !strings.Contains(line, c.want) {
			t.Errorf("task %s:\n%s\nwant it to contain %q", c.task, line, c.want)
		}
	}
	// Exact ends where the text is whole: no ", full" on an unbuffered
	// send, no capacity on an unbuffered channel.
	for _, task := range []string{`"sender"`, `"receiver"`, `"waitgroup"`, `"reader"`, `"writer"`} {
		line := parkedLine(t, text, task)
		if strings.Contains(line, "full") || strings.Contains(line, "capacity") || strings.Contains(line, "unbounded") {
			t.Errorf("task %s: %s", task, line)
		}
	}
	if strings.Contains(text, "does not describe itself") {
		t.Errorf("a wait without a description:\n%s", text)
	}
}
