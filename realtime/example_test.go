package realtime_test

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// The same code runs in the simulator and in production: here a task is
// spawned on its own goroutine and awaited.
func ExampleRunner_Start() {
	realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Millisecond) // the wall clock
			return 42
		})
		v, err := h.Await(ctx)
		fmt.Println(v, err)
	})
	// Output: 42 <nil>
}

// A service that shuts down gracefully on SIGINT or SIGTERM: the signal
// calls Stop, the worker sees Stopped fire, cleans up and returns.
func ExampleStopOnSignal() {
	realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		realtime.StopOnSignal(ctx, 10*time.Second)
		worker := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			stopped := ctx.Stopped()
			defer stopped.Release()
			for {
				i := simrt.Select(ctx, stopped.OnStop(nil), simrt.After(ctx, time.Second, nil))
				if i == 0 {
					return 0 // flush, close files, then return
				}
				// periodic work
			}
		})
		worker.Await(ctx)
	})
}

// Config.MetricsAddr serves the runtime's metrics, with process and Go
// runtime metrics, on GET /metrics.
func ExampleConfig_metrics() {
	realtime.New(realtime.Config{MetricsAddr: "127.0.0.1:0"}).Start(func(ctx simrt.Context) {
		ctx.Counter("requests", "Requests served.").Inc()
		fmt.Println(realtime.From(ctx).MetricsAddr() != nil)
	})
	// Output: true
}

// Context.Logger stamps every record with the task's name.
func ExampleContext_Logger() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	realtime.New(realtime.Config{Logger: log}).Start(func(ctx simrt.Context) {
		simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			realtime.From(ctx).Logger().Info("started")
			return 0
		}).Await(ctx)
	})
	// Output: level=INFO msg=started task=worker
}

// Runner.Start returns the value given to Stop, and an error if the runtime
// could not be set up.
func ExampleRunner_Start_stopValue() {
	stop, err := realtime.New(realtime.Config{}).Start(func(ctx simrt.Context) {
		ctx.Stop(3, time.Second)
	})
	fmt.Println(stop, err)
	// Output: 3 <nil>
}

// Main is the whole of a program's main: it exits with status 1 on an
// error and otherwise with the Stop value (143 after SIGTERM here).
func ExampleMain() {
	realtime.Main(realtime.Config{MetricsAddr: "127.0.0.1:9090"}, func(ctx simrt.Context) error {
		realtime.StopOnSignal(ctx, 10*time.Second)
		ctx.Stopped().Wait(ctx) // serve until a signal
		return nil
	})
}
