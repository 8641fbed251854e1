package deterministic_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// A bad node name is refused with an error naming the field, before
// anything changes: no half-made node is left, and its host stays free.
func TestAddNodeRefusesBadNameChangingNothing(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		idle := func(simrt.Context) {}
		for _, name := range []string{"runtime", "", "runtime_x", "runtimex", "9", "_x", "A", "a-b", "a b", "é"} {
			n, err := ctx.AddNode(deterministic.NodeConfig{Name: name, Host: hostA, Main: idle})
			check(t, n == nil && err != nil, fmt.Sprintf("AddNode(Name: %q) = %v, %v; want an error", name, n, err))
			check(t, strings.Contains(err.Error(), "Name"), fmt.Sprintf("AddNode(Name: %q) error %q does not name the field", name, err))
			check(t, len(ctx.Nodes()) == 0 && ctx.NodeByName(name) == nil, fmt.Sprintf("AddNode(Name: %q) left a node behind: %v", name, ctx.Nodes()))
		}
		host := hostA // refused names left it free
		for _, name := range []string{"a", "node_1", "r", "run", "x9_"} {
			addNode(t, ctx, deterministic.NodeConfig{Name: name, Host: host, Main: idle})
			host = host.Next()
		}
	})
}

// A clock step that would move a node's clock before the Unix epoch or past
// the end of simulated time is refused, and the clock is left as it was.
func TestNodeClockStaysInSimulatedTime(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Offset: time.Hour},
			Main: func(ctx simrt.Context) { ctx.Sleep(time.Hour) }})
		ctx.Sleep(time.Second)
		before := n.Now()
		for _, d := range []time.Duration{-1 << 62, math.MinInt64, -time.Hour - time.Second - 1, math.MaxInt64, time.Duration(math.MaxInt64 - before.UnixNano())} {
			err := n.JumpClock(d)
			check(t, err != nil && strings.Contains(err.Error(), "JumpClock"), fmt.Sprintf("JumpClock(%v) = %v; want an error", d, err))
			check(t, n.Now().Equal(before), fmt.Sprintf("refused JumpClock(%v) moved the clock: %v, was %v", d, n.Now(), before))
		}
		must(t, n.JumpClock(-time.Hour-time.Second)) // to the epoch exactly
		check(t, n.Now().Equal(time.Unix(0, 0)), fmt.Sprintf("JumpClock to the epoch: %v", n.Now()))
	})
}

// The zero NodeState is no state: a node is always running, paused,
// killed, off or exited, so an unset NodeState does not read as running.
func TestNodeStateZeroIsUnset(t *testing.T) {
	if got := deterministic.NodeState(0).String(); got != "NodeState(0)" {
		t.Errorf("NodeState(0) = %q, want NodeState(0)", got)
	}
	if got := deterministic.NodeRunning.String(); got != "running" {
		t.Errorf("NodeRunning = %q, want running", got)
	}
}
