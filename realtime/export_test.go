package realtime

import "github.com/simrt/simrt"

// DialsInFlight reports how many connects run on helper goroutines,
// including abandoned ones.
func DialsInFlight(ctx simrt.Context) int { return int(From(ctx).scope.rt.dials.Load()) }
