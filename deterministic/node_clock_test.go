package deterministic_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// SetClock refuses an offset that would put the node's clock before the
// Unix epoch (or past the end of simulated time, or that overflows the
// change of offset), with ErrClockRange, leaving the clock as it was; an
// offset that reaches the epoch exactly is accepted.
func TestSetClockStaysInSimulatedTime(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Offset: time.Hour},
			Main: func(ctx simrt.Context) { ctx.Sleep(time.Hour) }})
		ctx.Sleep(time.Second)
		before, cfg := n.Now(), n.Clock()
		for _, off := range []time.Duration{-time.Second - 1, -2 * time.Hour, math.MinInt64, math.MaxInt64} {
			err := n.SetClock(deterministic.NodeClock{Offset: off})
			check(t, errors.Is(err, deterministic.ErrClockRange), fmt.Sprintf("SetClock(Offset: %v) = %v; want ErrClockRange", off, err))
			check(t, n.Now().Equal(before) && n.Clock() == cfg, fmt.Sprintf("refused SetClock(Offset: %v) changed the clock: %v %+v", off, n.Now(), n.Clock()))
		}
		check(t, errors.Is(n.JumpClock(-2*time.Hour), deterministic.ErrClockRange), "JumpClock before the epoch: not ErrClockRange")
		must(t, n.SetClock(deterministic.NodeClock{Offset: -time.Second})) // the epoch exactly
		check(t, n.Now().Equal(time.Unix(0, 0)), fmt.Sprintf("SetClock to the epoch: %v", n.Now()))
	})
}

// AddNode refuses a starting clock offset that puts the node's clock before
// the epoch, instead of silently starting it at the epoch.
func TestAddNodeRefusesClockBeforeEpoch(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		ctx.Sleep(time.Second)
		idle := func(simrt.Context) {}
		n, err := ctx.AddNode(deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Offset: -2 * time.Second}, Main: idle})
		check(t, n == nil && errors.Is(err, deterministic.ErrClockRange), fmt.Sprintf("AddNode(Offset: -2s) at 1s = %v, %v; want ErrClockRange", n, err))
		check(t, len(ctx.Nodes()) == 0, "a refused AddNode left a node")
		addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Offset: -time.Second}, Main: idle})
	})
}
