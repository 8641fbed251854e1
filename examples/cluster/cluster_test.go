package main

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// addrs are the simulated nodes' listening addresses.
var addrs = []netip.AddrPort{
	netip.MustParseAddrPort("10.0.0.1:7100"),
	netip.MustParseAddrPort("10.0.0.2:7100"),
	netip.MustParseAddrPort("10.0.0.3:7100"),
}

// outcome is what one simulated run of the service saw.
type outcome struct {
	attempts, acked int      // bumps sent, and answered
	totals          []uint64 // each node's total after the heal
	converged       bool     // the totals agreed within the bound
	mainErrs        []string // errors Run returned, by node incarnation
	audit           string
}

// runCluster runs three nodes of the service, each on a simulated node
// whose main is Run, and a client that bumps the counter at random nodes,
// while script kills, powers off, restarts and partitions them. After the
// script, every fault healed, the nodes must agree on the total within
// two seconds.
func runCluster(t *testing.T, seed uint64, script func(ctx *deterministic.Context, nodes []*deterministic.Node)) outcome {
	t.Helper()
	var o outcome
	r := deterministic.New(deterministic.Config{
		Seed:    seed,
		Timeout: time.Minute,
		// A power loss keeps no byte of a write that was never synced.
		StorageFaults: faulty.Config{},
	})
	r.Start(func(ctx *deterministic.Context) {
		o.audit = ""
		var nodes []*deterministic.Node
		for i := range addrs {
			cfg := Config{Self: i, Addrs: addrs, Gossip: 50 * time.Millisecond}
			n, err := ctx.AddNode(deterministic.NodeConfig{
				Name: fmt.Sprintf("n%d", i+1),
				Host: addrs[i].Addr(),
				Main: func(ctx simrt.Context) {
					if err := Run(ctx, cfg); err != nil {
						o.mainErrs = append(o.mainErrs, fmt.Sprintf("n%d: %v", i+1, err))
					}
				},
			})
			if err != nil {
				t.Errorf("AddNode: %v", err)
				return
			}
			nodes = append(nodes, n)
		}
		client := simrt.Spawn(ctx.WithHost(netip.MustParseAddr("10.0.1.1")).Child("client"), func(ctx simrt.Context) struct{} {
			for range 60 {
				ctx.Sleep(time.Duration(10+ctx.Rand().IntN(40)) * time.Millisecond)
				o.attempts++
				err := simrt.Timeout(ctx, 200*time.Millisecond, func() error {
					c, err := Dial(ctx, addrs[ctx.Rand().IntN(len(addrs))])
					if err != nil {
						return err
					}
					defer c.Close()
					_, err = c.Bump()
					return err
				})
				if err == nil {
					o.acked++
				}
			}
			return struct{}{}
		})
		script(ctx, nodes)
		client.Await(ctx)
		// Liveness: once every fault is healed the nodes converge.
		deadline := ctx.Now().Add(2 * time.Second)
		for ctx.Now().Before(deadline) {
			o.totals = readTotals(ctx)
			if o.totals != nil && o.totals[0] == o.totals[1] && o.totals[1] == o.totals[2] {
				o.converged = true
				break
			}
			ctx.Sleep(50 * time.Millisecond)
		}
		o.audit = ctx.Auditor().State()
		ctx.Stop(0, time.Second)
	})
	return o
}

// readTotals reads every node's total, or returns nil if one cannot be
// read.
func readTotals(ctx *deterministic.Context) []uint64 {
	var out []uint64
	cctx := ctx.WithHost(netip.MustParseAddr("10.0.1.2"))
	for _, a := range addrs {
		var total uint64
		err := simrt.Timeout(cctx, 200*time.Millisecond, func() error {
			c, err := Dial(cctx, a)
			if err != nil {
				return err
			}
			defer c.Close()
			total, err = c.Read()
			return err
		})
		if err != nil {
			return nil
		}
		out = append(out, total)
	}
	return out
}

// check checks the service's properties: the nodes converged, no bump a
// client saw acknowledged was lost (a bump is synced before its answer, so
// neither a kill nor a power loss loses it), and no bump counted twice
// (the total is at most the bumps sent: one whose answer was lost may
// count).
func (o outcome) check(t *testing.T) {
	t.Helper()
	if len(o.mainErrs) > 0 {
		t.Errorf("a node's main failed: %s", strings.Join(o.mainErrs, "; "))
	}
	if !o.converged {
		t.Fatalf("nodes did not converge within 2s of the heal: totals %v", o.totals)
	}
	if total := int(o.totals[0]); total < o.acked || total > o.attempts {
		t.Fatalf("total %d, want between %d acknowledged and %d sent bumps", total, o.acked, o.attempts)
	}
	if o.acked == 0 {
		t.Fatalf("no bump acknowledged of %d", o.attempts)
	}
}

// TestCounterKillRestart kills each node's process in turn and restarts
// it: acknowledged bumps survive and the nodes converge.
func TestCounterKillRestart(t *testing.T) {
	for seed := range uint64(10) {
		o := runCluster(t, seed, func(ctx *deterministic.Context, nodes []*deterministic.Node) {
			for _, n := range nodes {
				ctx.Sleep(300 * time.Millisecond)
				if err := n.Kill(); err != nil {
					t.Errorf("Kill %s: %v", n.Name(), err)
				}
				ctx.Sleep(200 * time.Millisecond)
				if err := n.Restart(); err != nil {
					t.Errorf("Restart %s: %v", n.Name(), err)
				}
				if n.Incarnation() < 2 {
					t.Errorf("%s: incarnation %d after Restart", n.Name(), n.Incarnation())
				}
			}
		})
		o.check(t)
	}
}

// TestCounterPowerOffWhilePartitioned powers off a node cut off from the
// others, with a disk that keeps no unsynced byte: only synced state
// survives, and that is every acknowledged bump.
func TestCounterPowerOffWhilePartitioned(t *testing.T) {
	for seed := range uint64(10) {
		o := runCluster(t, seed, func(ctx *deterministic.Context, nodes []*deterministic.Node) {
			net := ctx.Network()
			ctx.Sleep(400 * time.Millisecond)
			net.Isolate(nodes[1].Host())
			ctx.Sleep(300 * time.Millisecond)
			if err := nodes[1].PowerOff(); err != nil {
				t.Errorf("PowerOff: %v", err)
			}
			ctx.Sleep(300 * time.Millisecond)
			net.Rejoin(nodes[1].Host())
			if err := nodes[1].Restart(); err != nil {
				t.Errorf("Restart: %v", err)
			}
			ctx.Sleep(200 * time.Millisecond)
			if err := nodes[0].Pause(400 * time.Millisecond); err != nil {
				t.Errorf("Pause: %v", err)
			}
		})
		o.check(t)
	}
}

// TestCounterSameSeedSameRun runs one seed twice: the same audit state.
func TestCounterSameSeedSameRun(t *testing.T) {
	script := func(ctx *deterministic.Context, nodes []*deterministic.Node) {
		ctx.Sleep(500 * time.Millisecond)
		_ = nodes[2].PowerOff()
		ctx.Sleep(100 * time.Millisecond)
		_ = nodes[2].Restart()
	}
	a, b := runCluster(t, 3, script), runCluster(t, 3, script)
	if a.audit == "" || a.audit != b.audit || a.acked != b.acked {
		t.Fatalf("two runs of seed 3: audit %s and %s, %d and %d acknowledged", a.audit, b.audit, a.acked, b.acked)
	}
}
