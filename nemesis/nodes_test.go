package nemesis_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/nemesis"
	"github.com/simrt/simrt/storage/faulty"
)

// heartbeats is a tiny cluster program: n1 sends a heartbeat to every
// other node every 50ms; each other node writes, every 50ms and synced,
// whether it heard one in the last 300ms ("ok") or not ("lonely"). Its
// planted bug: a node that restarts and finds "lonely" on its disk
// wrongly wipes its state, so n2 fails only when it is killed (or powered
// off) while cut off from n1 long enough.
type heartbeats struct {
	names []string
	hosts []netip.Addr
	// heard is when each node last heard n1, by index.
	heard []time.Time
	bug   string
}

func newHeartbeats(n int) *heartbeats {
	h := &heartbeats{heard: make([]time.Time, n)}
	for i := range n {
		h.names = append(h.names, fmt.Sprintf("n%d", i+1))
		h.hosts = append(h.hosts, netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}))
	}
	return h
}

const hbPort = 7000

func (h *heartbeats) add(t testing.TB, ctx *deterministic.Context) {
	for i := range h.names {
		if _, err := ctx.AddNode(deterministic.NodeConfig{Name: h.names[i], Host: h.hosts[i], Main: h.main(i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func (h *heartbeats) main(i int) func(ctx simrt.Context) {
	if i == 0 {
		return func(ctx simrt.Context) {
			for j := 1; j < len(h.hosts); j++ {
				simrt.Spawn(ctx.Child(fmt.Sprintf("to_%s", h.names[j])), func(ctx simrt.Context) struct{} {
					for {
						sink, _, err := ctx.Dial(netip.AddrPortFrom(h.hosts[j], hbPort))
						for err == nil {
							err = sink.Send([]byte{1})
							ctx.Sleep(50 * time.Millisecond)
						}
						ctx.Sleep(50 * time.Millisecond)
					}
				})
			}
			ctx.Stopped().Wait(ctx)
		}
	}
	return func(ctx simrt.Context) {
		node := ctx.(*deterministic.Context).Node()
		b, size, err := ctx.Open("hb", []byte("status"))
		for err != nil { // a disk fault: retry, as a supervisor would
			ctx.Sleep(50 * time.Millisecond)
			b, size, err = ctx.Open("hb", []byte("status"))
		}
		buf := make([]byte, size)
		if size > 0 && b.ReadAt(buf, 0) == nil && string(buf) == "lonely" && node.Incarnation() > 1 && i == 1 {
			h.bug = fmt.Sprintf("%s restarted at %v, found itself lonely and wiped its state", node.Name(), ctx.Now())
		}
		h.heard[i] = ctx.Now()
		simrt.Spawn(ctx.Child("status"), func(ctx simrt.Context) struct{} {
			for {
				ctx.Sleep(50 * time.Millisecond)
				status := "ok    "
				if ctx.Now().Sub(h.heard[i]) > 300*time.Millisecond {
					status = "lonely"
				}
				_ = b.WriteAt(0, simrt.WriteSync, []byte(status))
			}
		})
		l, err := ctx.Bind(netip.AddrPortFrom(h.hosts[i], hbPort))
		if err != nil {
			return
		}
		for {
			_, _, stream, err := l.Accept()
			if err != nil {
				return
			}
			simrt.Spawn(ctx.Child("recv"), func(ctx simrt.Context) struct{} {
				for {
					if _, err := stream.Recv(1); err != nil {
						return struct{}{}
					}
					h.heard[i] = ctx.Now()
				}
			})
		}
	}
}

// allHeard reports whether every node but n1 heard n1 in the last 200ms.
func (h *heartbeats) allHeard(now time.Time) bool {
	for i := 1; i < len(h.heard); i++ {
		if now.Sub(h.heard[i]) > 200*time.Millisecond {
			return false
		}
	}
	return true
}

func quiet(seed uint64) *deterministic.Runner {
	return deterministic.New(deterministic.Config{Seed: seed, Hooks: deterministic.Hooks{LogHandler: slog.DiscardHandler}})
}

// runHB runs the heartbeat cluster with a schedule (drawn from the seed
// with cfg when s is nil) and returns the final audit state, the schedule
// and the program.
func runHB(t testing.TB, seed uint64, cfg nemesis.Config, s *nemesis.Schedule, check func(ctx *deterministic.Context, m *nemesis.Nemesis)) (string, nemesis.Schedule, *heartbeats) {
	t.Helper()
	h := newHeartbeats(5)
	var sched nemesis.Schedule
	var fail error
	cp := quiet(seed).StartAndRecover(func(ctx *deterministic.Context) {
		h.add(t, ctx)
		if s != nil {
			sched = *s
		} else {
			var err error
			if sched, err = nemesis.Draw(nemesis.SeedRand(ctx.Seed()), nemesis.Names(ctx), cfg); err != nil {
				fail = err
				return
			}
		}
		m, err := nemesis.Run(ctx, sched)
		if err != nil {
			fail = err
			return
		}
		if check != nil {
			check(ctx, m)
		}
		// A lost send can be retransmitted 8 times, 51s in all.
		if err := m.Liveness(ctx, time.Minute, func() bool { return h.allHeard(ctx.Now()) }); err != nil {
			fail = err
		}
	})
	if fail != nil {
		t.Fatal(fail)
	}
	return cp.Auditor().State(), sched, h
}

var hbConfig = nemesis.Config{Heal: 8 * time.Second, NoSwarm: true}

func TestSeedAndFileGiveTheSameRun(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		state, s, _ := runHB(t, seed, hbConfig, nil, nil)
		again, s2, _ := runHB(t, seed, hbConfig, nil, nil)
		if state != again || s.String() != s2.String() {
			t.Fatalf("seed %d: two runs differ: audit %s/%s, schedules equal %v", seed, state, again, s.String() == s2.String())
		}
		if len(s.Events) < 5 {
			t.Fatalf("seed %d drew only %d events", seed, len(s.Events))
		}
		path := filepath.Join(t.TempDir(), "s.schedule")
		if err := s.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		back, err := nemesis.ReadSchedule(path)
		if err != nil {
			t.Fatal(err)
		}
		replayed, _, _ := runHB(t, seed, hbConfig, &back, nil)
		if replayed != state {
			t.Fatalf("seed %d: the schedule replayed from its file gives audit state %s, the seed %s", seed, replayed, state)
		}
		other, _, _ := runHB(t, seed+100, hbConfig, &back, nil)
		if other == state {
			t.Fatalf("seed %d: another seed with the same schedule gives the same audit state: the test cannot fail", seed)
		}
	}
}

func TestHealRestoresTheCluster(t *testing.T) {
	cfg := nemesis.Config{Heal: 20 * time.Second, NoSwarm: true, GapMin: 20 * time.Millisecond, GapMax: 100 * time.Millisecond}
	for i := range nemesis.Kinds() {
		cfg.Faults = append(cfg.Faults, nemesis.Fault{Kind: nemesis.Kinds()[i], Min: 5 * time.Second, Max: 30 * time.Second})
	}
	var before, after []string
	runHB(t, 9, cfg, nil, func(ctx *deterministic.Context, m *nemesis.Nemesis) {
		ctx.Sleep(19 * time.Second)
		before = unhealed(ctx)
		m.WaitHealed(ctx)
		after = unhealed(ctx)
		for _, f := range m.Effects() {
			for _, err := range f.Errs {
				// Draw knows no clock: a jump back early in a run from the
				// epoch is refused by the node, and reported.
				if !errors.Is(err, deterministic.ErrClockRange) {
					t.Errorf("%s", f)
				}
			}
		}
	})
	if len(before) == 0 {
		t.Fatal("nothing was faulty before the heal: the test cannot fail")
	}
	if len(before) < 5 {
		t.Fatalf("only %d things faulty before the heal: %q", len(before), before)
	}
	if len(after) > 0 {
		t.Fatalf("after the heal:\n%s", strings.Join(after, "\n"))
	}
}

// unhealed lists what is not as it was at the start: nodes not running,
// clocks off the global one, disk faults, links not perfect.
func unhealed(ctx *deterministic.Context) []string {
	var out []string
	for _, n := range ctx.Nodes() {
		if n.State() != deterministic.NodeRunning {
			out = append(out, fmt.Sprintf("%s is %v", n.Name(), n.State()))
		}
		if c := n.Clock(); c != (deterministic.NodeClock{}) {
			out = append(out, fmt.Sprintf("%s clock %+v", n.Name(), c))
		}
		if d := n.Now().Sub(ctx.Now()); d != 0 {
			out = append(out, fmt.Sprintf("%s clock skew %v", n.Name(), d))
		}
		if f := n.Storage().DiskFault(); f != (faulty.DiskFault{}) {
			out = append(out, fmt.Sprintf("%s disk %+v", n.Name(), f))
		}
	}
	if s := ctx.Network().String(); s != "" {
		out = append(out, "network: "+s)
	}
	return out
}

func TestLivenessFailureNamesBlockedTasks(t *testing.T) {
	h := newHeartbeats(3)
	var lerr error
	quiet(1).Start(func(ctx *deterministic.Context) {
		h.add(t, ctx)
		m, err := nemesis.Run(ctx, nemesis.Schedule{Heal: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		lerr = m.Liveness(ctx, time.Second, func() bool { return false })
	})
	if lerr == nil {
		t.Fatal("a predicate that never holds passed the liveness phase")
	}
	msg := lerr.Error()
	for _, want := range []string{"no progress after heal", "node n1 (up)", "node n3 (up)", `"n2_status"`, "Accept on 10.0.0.2:7000", "Recv at 10.0.0.3:7000"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the liveness error lacks %q:\n%s", want, msg)
		}
	}
}

func TestRunErrors(t *testing.T) {
	h := newHeartbeats(2)
	quiet(1).Start(func(ctx *deterministic.Context) {
		h.add(t, ctx)
		s := nemesis.Schedule{Heal: time.Second, Events: []nemesis.Event{{Kind: nemesis.Kill, Nodes: []string{"n7"}, For: time.Second}}}
		if _, err := nemesis.Run(ctx, s); err == nil || !strings.Contains(err.Error(), `no node "n7"`) {
			t.Errorf("Run with an unknown node: %v", err)
		}
		var fromNode error
		done := simrt.NewSignal()
		if _, err := ctx.AddNode(deterministic.NodeConfig{Name: "n9", Host: netip.MustParseAddr("10.0.0.9"), Main: func(nctx simrt.Context) {
			_, fromNode = nemesis.Run(nctx.(*deterministic.Context), nemesis.Schedule{Heal: time.Second})
			done.Fire(1)
		}}); err != nil {
			t.Fatal(err)
		}
		done.Wait(ctx)
		if fromNode == nil || !strings.Contains(fromNode.Error(), "node n9") {
			t.Errorf("Run from a node's context: %v", fromNode)
		}
	})
}

func TestShrinkPlantedClusterBug(t *testing.T) {
	cfg := nemesis.Config{Heal: 10 * time.Second, NoSwarm: true, Faults: []nemesis.Fault{
		{Kind: nemesis.Partition}, {Kind: nemesis.Isolate}, {Kind: nemesis.Kill}, {Kind: nemesis.Pause},
		{Kind: nemesis.Latency}, {Kind: nemesis.DiskSlow}, {Kind: nemesis.Loss}}}
	fails := func(seed uint64, s *nemesis.Schedule) (nemesis.Schedule, bool) {
		_, drawn, h := runHB(t, seed, cfg, s, nil)
		return drawn, h.bug != ""
	}
	var s nemesis.Schedule
	var seed uint64
	for ; ; seed++ {
		if seed == 100 {
			t.Fatal("no seed of 100 finds the planted bug")
		}
		var bad bool
		if s, bad = fails(seed, nil); bad {
			break
		}
	}
	small := nemesis.Shrink(s, func(s nemesis.Schedule) bool { _, bad := fails(seed, &s); return bad })
	t.Logf("seed %d: %s", seed, nemesis.Summary(s, small))
	if len(small.Events) > 3 {
		t.Fatalf("shrunk to %d events:\n%s", len(small.Events), small)
	}
	if _, bad := fails(seed, &small); !bad {
		t.Fatalf("the shrunk schedule passes:\n%s", small)
	}
}
