package realtime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
)

// start runs root on a fresh runtime with a quiet logger.
func start(cfg realtime.Config, root func(ctx simrt.Context)) {
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	realtime.New(cfg).Start(root)
}

func TestMetricsEndpointServesRuntimeAndProcessMetrics(t *testing.T) {
	var body string
	start(realtime.Config{MetricsAddr: "127.0.0.1:0"}, func(ctx simrt.Context) {
		ctx.Child("api").Counter("requests", "Requests served.").Add(3)
		addr := realtime.From(ctx).MetricsAddr()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Get("http://" + addr.String() + "/metrics")
		if err != nil {
			t.Errorf("GET /metrics: %v", err)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
	for _, want := range []string{
		"api_requests_total 3",
		`runtime_tasks_running{execution="Shared",kind="Root",name=""} 1`,
		"runtime_process_resident_memory_bytes",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

func TestMetricsAddrNilWhenOff(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		if a := realtime.From(ctx).MetricsAddr(); a != nil {
			t.Errorf("MetricsAddr = %v, want nil", a)
		}
	})
}

func TestLoggerCarriesTaskName(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
	start(realtime.Config{Logger: log}, func(ctx simrt.Context) {
		h := simrt.Spawn(ctx.Child("worker"), func(ctx simrt.Context) int {
			realtime.From(ctx).Logger().Info("hello")
			return 0
		})
		h.Await(ctx)
	})
	var rec struct{ Msg, Task string }
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if rec.Msg != "hello" || rec.Task != "worker" {
		t.Errorf("record = %+v, want hello from task worker", rec)
	}
}

func TestTaskPanicIsLoggedWithTaskName(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	start(realtime.Config{Logger: log, CatchPanics: true}, func(ctx simrt.Context) {
		simrt.Spawn(ctx.Child("crasher"), func(ctx simrt.Context) int { panic("boom") }).Await(ctx)
	})
	if s := buf.String(); !strings.Contains(s, "task panicked") || !strings.Contains(s, "task=crasher") || !strings.Contains(s, "boom") {
		t.Errorf("log = %q", s)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func TestStopOnSignalStopsWithSignalValue(t *testing.T) {
	var got int
	start(realtime.Config{}, func(ctx simrt.Context) {
		stopped := ctx.Stopped()
		realtime.StopOnSignal(ctx, 0, syscall.SIGUSR1)
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
			t.Errorf("kill: %v", err)
			return
		}
		got = stopped.Wait(ctx)
		stopped.Release()
	})
	if want := 128 + int(syscall.SIGUSR1); got != want {
		t.Errorf("stop value = %d, want %d", got, want)
	}
}

func TestStopOnSignalCancel(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		cancel := realtime.StopOnSignal(ctx, 0)
		cancel()
		cancel()
		if _, fired := ctx.Stopped().Fired(); fired {
			t.Error("stopped without a signal")
		}
	})
}

func TestContextUsedAfterStartPanics(t *testing.T) {
	var escaped simrt.Context
	start(realtime.Config{}, func(ctx simrt.Context) { escaped = ctx })
	v := catch(func() { escaped.Sleep(time.Millisecond) })
	if s, _ := v.(string); !strings.Contains(s, "after its runtime finished") {
		t.Errorf("panic = %v", v)
	}
}

func TestBlockingThroughEndedTaskContextPanics(t *testing.T) {
	start(realtime.Config{CatchPanics: true}, func(ctx simrt.Context) {
		first, _ := simrt.Spawn(ctx.Child("first"), func(ctx simrt.Context) simrt.Context { return ctx }).Await(ctx)
		_, err := simrt.Spawn(ctx.Child("second"), func(simrt.Context) int {
			first.Sleep(time.Millisecond) // the wrong context
			return 0
		}).Await(ctx)
		var pe *simrt.PanicError
		if !errors.As(err, &pe) || !strings.Contains(pe.Value.(string), `task "first", which has ended`) {
			t.Errorf("err = %v, want a panic naming task first", err)
		}
	})
}

func TestSpawnAfterShutdownIsClosed(t *testing.T) {
	var late *simrt.Handle[int]
	var stopped sync.WaitGroup
	stopped.Add(1)
	start(realtime.Config{}, func(ctx simrt.Context) {
		ready := simrt.NewOneshot[struct{}]()
		simrt.Spawn(ctx.Child("lingerer"), func(ctx simrt.Context) int {
			defer stopped.Done()
			defer func() {
				// Unwinding at shutdown: admission is closed.
				late = simrt.Spawn(ctx, func(simrt.Context) int { return 1 })
			}()
			ready.Send(struct{}{})
			simrt.Select(ctx)
			return 0
		})
		// Wait until the lingerer runs: aborted before it starts, its
		// function (and so stopped.Done) would never run.
		ready.Recv(ctx)
	})
	stopped.Wait()
	if !late.Done() {
		t.Fatal("handle spawned during shutdown is not done")
	}
}

// TestSpawnsRacingShutdown spawns from several tasks while the root
// returns: each spawn either runs or is refused, and Start returns only
// once every task it admitted has ended (TestMain checks for leftovers).
func TestSpawnsRacingShutdown(t *testing.T) {
	for range 20 {
		var handles [4][]*simrt.Handle[int]
		start(realtime.Config{}, func(ctx simrt.Context) {
			for i := range handles {
				simrt.Spawn(ctx.Child("spawner"), func(ctx simrt.Context) int {
					for {
						handles[i] = append(handles[i], simrt.Spawn(ctx, func(simrt.Context) int { return 1 }))
						simrt.Reschedule(ctx) // unwinds once aborted
					}
				})
			}
			ctx.Sleep(time.Millisecond)
		})
		for _, hs := range handles {
			for _, h := range hs {
				if !h.Done() {
					t.Fatal("a handle is not done after Start returned")
				}
			}
		}
	}
}

func TestRootGoexitStillShutsDown(t *testing.T) {
	unwound := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		start(realtime.Config{}, func(ctx simrt.Context) {
			ready := simrt.NewOneshot[struct{}]()
			simrt.Spawn(ctx, func(ctx simrt.Context) int {
				defer close(unwound)
				ready.Send(struct{}{})
				simrt.Select(ctx)
				return 0
			})
			ready.Recv(ctx)
			runtime.Goexit() // what t.FailNow does
		})
	}()
	<-exited
	select {
	case <-unwound:
	default:
		t.Fatal("task still running after Start ended by Goexit")
	}
}

func TestStrategyOutlivesRuntime(t *testing.T) {
	var s simrt.Strategy
	start(realtime.Config{Parallelism: 2}, func(ctx simrt.Context) { s = ctx.Strategy(4) })
	got := simrt.Map(s, []int{1, 2, 3}, func(v int) int { return v * v })
	if want := []int{1, 4, 9}; !slices.Equal(got, want) {
		t.Errorf("Map = %v, want %v", got, want)
	}
}

func TestStrategyPanicKeepsValue(t *testing.T) {
	type payload struct{ n int }
	start(realtime.Config{Parallelism: 4}, func(ctx simrt.Context) {
		v := catch(func() {
			ctx.Strategy(4).ForEach(100, func(i int) {
				if i == 50 {
					panic(payload{i})
				}
			})
		})
		if v != (payload{50}) {
			t.Errorf("ForEach panicked with %v, want payload{50}", v)
		}
	})
}

func TestStrategyRunsInParallel(t *testing.T) {
	start(realtime.Config{Parallelism: 2}, func(ctx simrt.Context) {
		// Two calls that each wait for the other can only finish if they
		// run at the same time.
		var both sync.WaitGroup
		both.Add(2)
		ctx.Strategy(2).ForEach(2, func(int) {
			both.Done()
			both.Wait()
		})
	})
}

func TestResolveLocalhost(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		addrs, err := ctx.Resolve("localhost")
		if err != nil || len(addrs) == 0 {
			t.Errorf("Resolve(localhost) = %v, %v", addrs, err)
		}
		_, err = ctx.Resolve("nonexistent.invalid")
		var re *simrt.ResolveError
		if !errors.As(err, &re) || !errors.Is(err, simrt.ErrResolveFailed) || re.Host != "nonexistent.invalid" {
			t.Errorf("Resolve(nonexistent.invalid) err = %v", err)
		}
	})
}

func TestInvalidConfigPanics(t *testing.T) {
	v := catch(func() { realtime.New(realtime.Config{Parallelism: -1}) })
	if s, _ := v.(string); !strings.Contains(s, "Parallelism") {
		t.Errorf("panic = %v", v)
	}
}

func TestStartTwicePanics(t *testing.T) {
	r := realtime.New(realtime.Config{Logger: quietLogger()})
	r.Start(func(simrt.Context) {})
	if v := catch(func() { r.Start(func(simrt.Context) {}) }); v == nil {
		t.Error("second Start did not panic")
	}
}

func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestAbortRacingCompletion aborts tasks while they return: Await reports
// either the value or ErrClosed with the zero value, never a mix, and every
// awaiter is woken (the handle wakes its waiters after releasing its lock).
func TestAbortRacingCompletion(t *testing.T) {
	start(realtime.Config{}, func(ctx simrt.Context) {
		for range 2000 {
			h := simrt.Spawn(ctx, func(simrt.Context) int { return 7 })
			waiter := simrt.Spawn(ctx, func(ctx simrt.Context) error {
				v, err := h.Await(ctx)
				if (err == nil && v != 7) || (err != nil && (v != 0 || !errors.Is(err, simrt.ErrClosed))) {
					return errors.New("mixed outcome")
				}
				return nil
			})
			simrt.Spawn(ctx, func(simrt.Context) int { h.Abort(); return 0 })
			if _, err := h.Await(ctx); err != nil && !errors.Is(err, simrt.ErrClosed) {
				t.Error(err)
			}
			if v, err := waiter.Await(ctx); err != nil || v != nil {
				t.Fatal(v, err)
			}
		}
	})
}
