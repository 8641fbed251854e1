package runtimetest

import (
	"errors"
	"slices"

	"github.com/simrt/simrt"
)

// Cases for properties and Buggify, whose meaning depends on
// Runner.Simulated.
var propertyCases = []testCase{
	{"BuggifyPerSeedInSimulationFalseInProduction", "Buggify draws from the seed in a simulation (same seed, same sites fire; some fire) and is always false in production", buggifyPerSeed},
	{"FailedAlwaysStopsSimulationOnly", "a false Always stops a simulation (Start panics with a *simrt.PropertyError naming it); production carries on (it only logs)", failedAlways},
	{"PassingPropertiesChangeNothing", "properties that hold, Sometimes and Reachable never stop a run, on any runtime, and leave a simulation's schedule as it was", passingProperties},
}

// buggifyCalls calls n Buggify sites, each several times, and returns
// which calls fired.
func buggifyCalls(t T, r Runner, seed uint64) []bool {
	var fired []bool
	r.run(t, Options{Seed: seed}, func(ctx simrt.Context) {
		for range 8 {
			for _, site := range []string{"slow_write", "short_timeout", "drop_ack", "reorder", "stale_read", "early_close"} {
				fired = append(fired, simrt.Buggify(ctx, site))
			}
		}
	})
	return fired
}

func buggifyPerSeed(t T, r Runner) {
	if !r.Simulated {
		for seed := range uint64(3) {
			if i := slices.Index(buggifyCalls(t, r, seed), true); i >= 0 {
				t.Fatalf("call %d of Buggify fired in production", i)
			}
		}
		return
	}
	some := false
	for seed := range uint64(5) {
		a, b := buggifyCalls(t, r, seed), buggifyCalls(t, r, seed)
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d: two runs fired different Buggify calls:\n%v\n%v", seed, a, b)
		}
		some = some || slices.Contains(a, true)
	}
	if !some {
		t.Errorf("no Buggify call fired over 5 seeds of 48 calls each")
	}
}

func passingProperties(t T, r Runner) {
	run := func(props bool) (order []int) {
		r.run(t, Options{Seed: 11}, func(ctx simrt.Context) {
			done := simrt.NewChan[int](4)
			for w := range 4 {
				simrt.Spawn(ctx.Child("w"), func(ctx simrt.Context) int {
					if props {
						simrt.Always(ctx, w < 4, "worker index in range", "w", w)
						simrt.AlwaysOrUnreachable(ctx, true, "holds")
						simrt.Sometimes(ctx, w == 0, "worker zero ran")
						simrt.Reachable(ctx, "a worker ran")
					}
					simrt.Reschedule(ctx)
					done.Send(ctx, w)
					return w
				})
			}
			for range 4 {
				v, _ := done.Recv(ctx)
				order = append(order, v)
			}
		})
		return order
	}
	with, without := run(true), run(false)
	if len(with) != 4 {
		t.Fatalf("with properties the workers reported %v", with)
	}
	if r.Simulated && !slices.Equal(with, without) {
		t.Errorf("properties changed the schedule of seed 11: %v with, %v without", with, without)
	}
}

func failedAlways(t T, r Runner) {
	carried := false
	v, panicked := r.runPanics(t, Options{Seed: 3}, func(ctx simrt.Context) {
		simrt.Always(ctx, false, "conformance: deliberately false")
		carried = true
	})
	if !r.Simulated {
		if panicked || !carried {
			t.Fatalf("production: Start panicked %v (%v), task carried on %v; want no panic, carried on", panicked, v, carried)
		}
		return
	}
	var pe *simrt.PropertyError
	if err, ok := v.(error); !panicked || !ok || !errors.As(err, &pe) {
		t.Fatalf("simulation: Start panicked %v with %v; want a *simrt.PropertyError", panicked, v)
	}
	if carried || pe.Kind != simrt.PropertyAlways || pe.Message != "conformance: deliberately false" || pe.Seed != 3 {
		t.Errorf("simulation: task carried on %v, error %+v; want it stopped, Always, the message, seed 3", carried, pe)
	}
}
