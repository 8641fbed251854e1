package runtimetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/simrt/simrt"
)

// Cases whose expectations depend on Runner.Simulated.
var simulationCases = []testCase{
	{"Randomness", "the context reads random bytes; a simulation draws them from its seed (same seed, same bytes), production from crypto/rand", randomness},
	{"SameSeedSameRun", "a simulation run twice with one seed interleaves its tasks the same way and encodes the same metric text, byte for byte; another seed interleaves them differently (production promises neither)", sameSeedSameRun},
	{"DeadlockDetection", "a simulation with no runnable task and no pending timer panics with an error matching Runner.Stalled; production waits for Options.Timeout and panics with one matching Runner.TimedOut", deadlockDetection},
	{"RunTimeout", "a run still going after Options.Timeout of the runtime's time (simulated or wall) panics with an error matching Runner.TimedOut, after unwinding its tasks", runTimeout},
}

func randomness(t T, r Runner) {
	draw := func(seed uint64) (b []byte, u uint64) {
		r.run(t, Options{Seed: seed}, func(ctx simrt.Context) {
			b = make([]byte, 32)
			if n, err := ctx.Read(b); n != len(b) || err != nil {
				t.Errorf("Read = %d, %v; want %d, nil", n, err, len(b))
			}
			u = ctx.Rand().Uint64()
		})
		return b, u
	}
	b1, u1 := draw(7)
	b2, u2 := draw(7)
	if bytes.Equal(b1, make([]byte, 32)) {
		t.Errorf("Read returned only zeros")
	}
	if r.Simulated {
		if !bytes.Equal(b1, b2) || u1 != u2 {
			t.Errorf("one seed gave different draws: %x/%d, then %x/%d", b1, u1, b2, u2)
		}
		if b3, _ := draw(8); bytes.Equal(b1, b3) {
			t.Errorf("seeds 7 and 8 gave the same bytes %x", b1)
		}
	} else if bytes.Equal(b1, b2) {
		t.Errorf("two production runs read the same 32 bytes %x", b1)
	}
}

// workload runs a few tasks that take turns on a mutex, sleep for random
// spans and report to a channel; it returns the order of the reports and
// the metric text at the end.
func workload(t T, r Runner, seed uint64) (order, metrics string) {
	r.run(t, Options{Seed: seed}, func(ctx simrt.Context) {
		var mu simrt.Mutex
		log := simrt.NewUnboundedChan[string]()
		var hs []*simrt.Handle[int]
		for w := range 8 {
			c := ctx.Child(fmt.Sprintf("w%d", w))
			hs = append(hs, simrt.Spawn(c, func(ctx simrt.Context) int {
				n := ctx.Counter("steps", "steps taken")
				for i := range 5 {
					ctx.Sleep(time.Duration(ctx.Rand().IntN(3)) * time.Millisecond)
					mu.Lock(ctx)
					log.Send(ctx, fmt.Sprintf("%d.%d", w, i))
					simrt.Reschedule(ctx)
					mu.Unlock()
					n.Inc()
				}
				return w
			}))
		}
		for _, h := range hs {
			h.Await(ctx)
		}
		log.Close()
		var b strings.Builder
		for {
			v, ok := log.Recv(ctx)
			if !ok {
				break
			}
			b.WriteString(v + " ")
		}
		order, metrics = b.String(), ctx.Encode()
	})
	return order, metrics
}

func sameSeedSameRun(t T, r Runner) {
	if !r.Simulated {
		t.Skip("production schedules are not reproducible")
	}
	o1, m1 := workload(t, r, 3)
	o2, m2 := workload(t, r, 3)
	if o1 != o2 {
		t.Errorf("one seed, two orders:\n%s\n%s", o1, o2)
	}
	if m1 != m2 {
		t.Errorf("one seed, two metric texts:\n%s\n----\n%s", m1, m2)
	}
	if o3, _ := workload(t, r, 4); o3 == o1 {
		t.Errorf("seeds 3 and 4 gave the same order %s", o1)
	}
}

// runTimeoutBudget is the Options.Timeout of the cases that run into it:
// short, since in production it is wall time.
const runTimeoutBudget = 200 * time.Millisecond

func deadlockDetection(t T, r Runner) {
	deadlock := func(ctx simrt.Context) {
		simrt.NewChan[int](1).Recv(ctx) // nobody will ever send
	}
	if !r.Simulated { // no stall detection: the run's timeout ends it
		v, panicked := r.runPanics(t, Options{Timeout: runTimeoutBudget}, deadlock)
		checkVerdict(t, v, panicked, r.TimedOut, nil)
		return
	}
	v, panicked := r.runPanics(t, Options{}, deadlock)
	checkVerdict(t, v, panicked, r.Stalled, r.TimedOut)
}

func runTimeout(t T, r Runner) {
	unwound := false
	v, panicked := r.runPanics(t, Options{Timeout: runTimeoutBudget}, func(ctx simrt.Context) {
		simrt.Spawn(ctx, func(ctx simrt.Context) int {
			defer func() { unwound = true }()
			parkForever(ctx)
			return 0
		})
		for {
			ctx.Sleep(10 * time.Millisecond) // always a timer pending: never stalled
		}
	})
	checkVerdict(t, v, panicked, r.TimedOut, r.Stalled)
	if !unwound {
		t.Errorf("a parked task's deferred calls did not run before Start panicked")
	}
}

// checkVerdict fails t unless Start panicked with an error that matches
// want and not other (nil: no other verdict to tell it from).
func checkVerdict(t T, v any, panicked bool, want, other error) {
	t.Helper()
	err, ok := v.(error)
	switch {
	case !panicked:
		t.Fatalf("Start returned; want a panic matching %q", want)
	case !ok:
		t.Fatalf("Start panicked with %v (%T), not an error; want one matching %q", v, v, want)
	case !errors.Is(err, want) || other != nil && errors.Is(err, other):
		t.Fatalf("Start panicked with %v; want an error matching %q only", err, want)
	}
}
