package deterministic_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
)

// Nodes and their lifecycle: Kill, PowerOff, Restart, Pause/Resume.

var (
	hostA = netip.MustParseAddr("10.0.0.1")
	hostB = netip.MustParseAddr("10.0.0.2")
	hostC = netip.MustParseAddr("10.0.0.9")
	addrA = netip.AddrPortFrom(hostA, 80)
)

func addNode(t testing.TB, ctx *deterministic.Context, cfg deterministic.NodeConfig) *deterministic.Node {
	t.Helper()
	n, err := ctx.AddNode(cfg)
	if err != nil {
		t.Fatalf("AddNode(%s): %v", cfg.Name, err)
	}
	return n
}

func incarnation(ctx simrt.Context) int { return deterministic.From(ctx).Node().Incarnation() }

// A killed node's peers see resets in TCP's order; its unsynced writes
// survive for the restarted process, which binds the same address again.
func TestNodeKillResetsPeersKeepsUnsyncedWrites(t *testing.T) {
	var reread string
	var rebound error = errors.New("not reached")
	var incs []int
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			incs = append(incs, incarnation(ctx))
			b, size := open(t, ctx, "p", "x")
			if incarnation(ctx) == 2 {
				reread = readAll(t, b, int(size))
				_, rebound = ctx.Bind(addrA)
				return
			}
			must(t, b.WriteAt(0, 0, []byte("hello"))) // never synced
			l, err := ctx.Bind(addrA)
			must(t, err)
			_, sink, _, err := l.Accept()
			must(t, err)
			must(t, sink.Send([]byte("hi")))
			ctx.Sleep(time.Hour)
		}})
		check(t, n.State() == deterministic.NodeRunning && n.Incarnation() == 1, "a new node runs incarnation 1")
		ctx.Sleep(10 * time.Millisecond)
		sink, stream, err := ctx.WithHost(hostC).Dial(addrA)
		must(t, err)
		ctx.Sleep(10 * time.Millisecond) // "hi" has arrived
		must(t, n.Kill())
		check(t, n.State() == deterministic.NodeKilled, "state %v after Kill", n.State())
		got, err := stream.Recv(2)
		check(t, err == nil && string(got) == "hi", "data delivered before the kill is read: %q %v", got, err)
		_, err = stream.Recv(1)
		check(t, errors.Is(err, simrt.ErrRecvFailed), "then Recv fails: %v", err)
		err = sink.Send([]byte("x"))
		check(t, errors.Is(err, simrt.ErrSendFailed), "a Send to the dead node fails: %v", err)
		check(t, n.Kill() != nil, "Kill of a killed node fails")
		check(t, n.Pause(0) != nil, "Pause of a killed node fails")
		must(t, n.Restart())
		check(t, n.Incarnation() == 2, "incarnation %d after Restart", n.Incarnation())
		check(t, n.Restart() != nil, "Restart of a running node fails")
		ctx.Sleep(10 * time.Millisecond)
		check(t, n.State() == deterministic.NodeExited, "main returned: %v", n.State())
		found := false
		for _, f := range ctx.Faults() {
			found = found || f.Kind == "host_reset" && f.Count == 1
		}
		check(t, found, "the kill counts as a host_reset: %v", ctx.Faults())
	})
	check(t, len(incs) == 2 && incs[0] == 1 && incs[1] == 2, "main ran as incarnations %v", incs)
	check(t, reread == "hello", "the restarted process reads the unsynced write: %q", reread)
	check(t, rebound == nil, "the restarted process binds the same address: %v", rebound)
}

// A task of a killed process, unwinding, can no longer act for the node.
func TestNodeOldIncarnationOpsFail(t *testing.T) {
	var errs []error
	start(t, deterministic.Seeded(2), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			b, _ := open(t, ctx, "p", "x")
			defer func() {
				_, _, err := ctx.Open("p", []byte("y"))
				errs = append(errs, err)
				errs = append(errs, b.WriteAt(0, simrt.WriteSync, []byte("late")))
				_, err = ctx.Bind(addrA)
				errs = append(errs, err)
				_, _, err = ctx.Dial(netip.AddrPortFrom(hostB, 1))
				errs = append(errs, err)
				_, err = ctx.Scan("p")
				errs = append(errs, err)
				errs = append(errs, ctx.Remove("p", []byte("x")))
			}()
			ctx.Sleep(time.Hour)
		}})
		ctx.Sleep(10 * time.Millisecond)
		must(t, n.Kill())
		ctx.Sleep(10 * time.Millisecond)
		_, ok := ctx.NodeByName("a"), true
		check(t, ok, "")
	})
	check(t, len(errs) == 6, "the defer ran: %d errors", len(errs))
	for i, err := range errs {
		check(t, errors.Is(err, simrt.ErrClosed), "op %d of the dead process: %v, want ErrClosed", i, err)
	}
}

// PowerOff resolves unsynced writes by the node's fault model; synced data
// survives.
func TestNodePowerOffFollowsFaultModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   float64
		want   string
		killed bool
	}{
		{"lose", 0, "synced", false},
		{"keep", 1, "synced+unsynced", false},
		{"lose-after-kill", 0, "synced", true},
		{"keep-after-kill", 1, "synced+unsynced", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			start(t, deterministic.Seeded(3), func(ctx *deterministic.Context) {
				faults := faulty.Config{Write: faulty.WriteConfig{RetentionRate: tc.rate}}
				n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, StorageFaults: &faults, Main: func(ctx simrt.Context) {
					b, size := open(t, ctx, "p", "x")
					if incarnation(ctx) == 2 {
						got = readAll(t, b, int(size))
						return
					}
					must(t, b.WriteAt(0, simrt.WriteSync, []byte("synced")))
					must(t, b.WriteAt(6, 0, []byte("+unsynced")))
					ctx.Sleep(time.Hour)
				}})
				ctx.Sleep(10 * time.Millisecond)
				if tc.killed {
					must(t, n.Kill())
				}
				must(t, n.PowerOff())
				check(t, n.State() == deterministic.NodeOff, "state %v", n.State())
				check(t, n.PowerOff() != nil, "PowerOff of an off node fails")
				must(t, n.Restart())
				ctx.Sleep(10 * time.Millisecond)
			})
			check(t, got == tc.want, "after PowerOff the disk holds %q, want %q", got, tc.want)
		})
	}
}

// A paused node's timers do not fire and a peer times out on it; on resume
// it carries on where it was.
func TestNodePause(t *testing.T) {
	var woke []time.Duration
	start(t, deterministic.Seeded(4), func(ctx *deterministic.Context) {
		t0 := ctx.Now()
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			l, err := ctx.Bind(addrA)
			must(t, err)
			_, sink, stream, err := l.Accept()
			must(t, err)
			for i := 0; i < 3; i++ {
				ctx.Sleep(100 * time.Millisecond)
				woke = append(woke, ctx.Now().Sub(t0))
				if _, err := stream.Recv(1); err != nil {
					return
				}
				must(t, sink.Send([]byte("p")))
			}
		}})
		ctx.Sleep(10 * time.Millisecond)
		sink, stream, err := ctx.WithHost(hostC).Dial(addrA)
		must(t, err)
		ping := func() error {
			must(t, sink.Send([]byte("q")))
			return simrt.Timeout(ctx, 200*time.Millisecond, func() error { _, err := stream.Recv(1); return err })
		}
		must(t, ping())
		must(t, n.Pause(0))
		check(t, n.State() == deterministic.NodePaused, "state %v", n.State())
		check(t, n.Pause(0) != nil, "Pause of a paused node fails")
		err = ping()
		check(t, errors.Is(err, simrt.ErrTimeout), "a peer times out on a paused node: %v", err)
		check(t, len(woke) == 1, "the paused node's timer fired: %v", woke)
		ctx.Sleep(time.Second)
		check(t, len(woke) == 1, "the paused node's timer fired: %v", woke)
		ts := n.Tasks()
		check(t, len(ts) == 1 && !ts[0].Ready && ts[0].On == "node a paused", "a held task is reported as such: %+v", ts)
		must(t, n.Resume())
		check(t, n.Resume() != nil, "Resume of a running node fails")
		ctx.Sleep(10 * time.Millisecond)
		check(t, len(woke) == 2, "on resume the due timer fires at once: %v", woke)
		// Pause(d) ends by itself.
		must(t, n.Pause(500*time.Millisecond))
		must(t, sink.Send([]byte("q")))
		ctx.Sleep(400 * time.Millisecond)
		check(t, len(woke) == 2, "paused for d: %v", woke)
		ctx.Sleep(300 * time.Millisecond)
		check(t, n.State() != deterministic.NodePaused && len(woke) == 3, "Pause(d) ended: %v %v", n.State(), woke)
	})
	check(t, woke[1] > 1100*time.Millisecond, "the second wake came after the pause: %v", woke)
}

// Bad configurations and wrong states are errors, not panics.
func TestNodeBadInput(t *testing.T) {
	main := func(simrt.Context) {}
	start(t, deterministic.Seeded(5), func(ctx *deterministic.Context) {
		addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: main})
		for _, cfg := range []deterministic.NodeConfig{
			{Name: "a", Host: hostB, Main: main},
			{Name: "b", Host: hostA, Main: main},
			{Name: "", Host: hostB, Main: main},
			{Name: "B", Host: hostB, Main: main},
			{Name: "b c", Host: hostB, Main: main},
			{Name: "b-c", Host: hostB, Main: main}, // a task label cannot hold "-"
			{Name: "b", Main: main},
			{Name: "b", Host: netip.MustParseAddr("127.0.0.1"), Main: main},
			{Name: "b", Host: netip.MustParseAddr("0.0.0.0"), Main: main},
			{Name: "b", Host: netip.MustParseAddr("::1"), Main: main},
			{Name: "b", Host: hostB},
			{Name: "b", Host: hostB, Main: main, Clock: deterministic.NodeClock{Drift: 0.5}},
			{Name: "b", Host: hostB, Main: main, Clock: deterministic.NodeClock{Drift: -0.7}},
		} {
			if _, err := ctx.AddNode(cfg); err == nil {
				t.Errorf("AddNode(%+v) succeeded", cfg)
			}
		}
		check(t, len(ctx.Nodes()) == 1 && ctx.NodeByName("b") == nil, "no bad node was added")
		n := ctx.NodeByName("a")
		check(t, n.SetClock(deterministic.NodeClock{Drift: 1}) != nil, "SetClock with drift 1 fails")
		ctx.Sleep(10 * time.Millisecond)
		check(t, n.State() == deterministic.NodeExited, "state %v", n.State())
		for name, err := range map[string]error{"Kill": n.Kill(), "Pause": n.Pause(0), "Resume": n.Resume()} {
			check(t, errors.Is(err, deterministic.ErrNodeState), "%s of an exited node: %v", name, err)
		}
		must(t, n.Restart())
		check(t, errors.Is(n.Restart(), deterministic.ErrNodeState), "Restart of a running node")
		check(t, ctx.Node() == nil, "the root is not a node")
	})
}

// A node's Sleep lasts its duration times 1+Drift in global time, and the
// Now of two nodes with different clocks diverge; JumpClock moves Now and
// not pending sleeps; SetClock keeps Now continuous.
func TestNodeClocks(t *testing.T) {
	var slept, sleptUntil, afterAt time.Duration
	var nowA, nowB time.Time
	start(t, deterministic.Seeded(6), func(ctx *deterministic.Context) {
		t0 := ctx.Now()
		done := simrt.NewSignal()
		a := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Drift: 0.5e-3}, Main: func(nctx simrt.Context) {
			g0 := ctx.Now() // global, through the root's context
			nctx.Sleep(time.Second)
			slept = ctx.Now().Sub(g0)
			g0 = ctx.Now()
			nctx.SleepUntil(nctx.Now().Add(time.Second))
			sleptUntil = ctx.Now().Sub(g0)
			g0 = ctx.Now()
			fired := simrt.NewSignal()
			nctx.AfterFunc(time.Second, func() { afterAt = ctx.Now().Sub(g0); fired.Fire(1) })
			fired.Wait(nctx)
			done.Fire(1)
		}})
		b := addNode(t, ctx, deterministic.NodeConfig{Name: "b", Host: hostB, Clock: deterministic.NodeClock{Offset: time.Minute, Drift: -0.1}, Main: func(simrt.Context) {}})
		check(t, b.Now().Sub(t0) == time.Minute, "offset: b's clock reads %v", b.Now().Sub(t0))
		done.Wait(ctx)
		nowA, nowB = a.Now(), b.Now()
		el := ctx.Now().Sub(t0)
		check(t, nowA.Sub(t0) < el, "a slow clock lags: %v after %v", nowA.Sub(t0), el)
		check(t, nowB.Sub(t0)-time.Minute > el, "a fast clock runs ahead: %v after %v", nowB.Sub(t0)-time.Minute, el)

		// JumpClock moves Now, not a pending sleep.
		var jumpedSleep time.Duration
		var localAfter time.Duration
		c := addNode(t, ctx, deterministic.NodeConfig{Name: "c", Host: hostC, Clock: deterministic.NodeClock{Offset: 2 * time.Hour}, Main: func(nctx simrt.Context) {
			g0, l0 := ctx.Now(), nctx.Now()
			nctx.Sleep(time.Second)
			jumpedSleep = ctx.Now().Sub(g0)
			localAfter = nctx.Now().Sub(l0)
		}})
		ctx.Sleep(100 * time.Millisecond)
		before := c.Now()
		must(t, c.JumpClock(-time.Hour)) // from 2 h past the epoch: stays after it
		check(t, c.Now().Sub(before) == -time.Hour, "JumpClock(-1h) moved Now by %v", c.Now().Sub(before))
		ctx.Sleep(2 * time.Second)
		check(t, jumpedSleep == time.Second, "a sleep across a jump lasts %v", jumpedSleep)
		check(t, localAfter == time.Second-time.Hour, "the jump shows in Now: %v", localAfter)

		// SetClock keeps Now continuous apart from the offset change.
		before = a.Now()
		must(t, a.SetClock(deterministic.NodeClock{Offset: time.Second, Drift: 0}))
		check(t, a.Now().Sub(before) == time.Second, "SetClock moved Now by %v", a.Now().Sub(before))
		check(t, a.Clock().Offset == time.Second, "Clock() %+v", a.Clock())
	})
	want := 1000500 * time.Microsecond // 1 s · (1 + 0.5e-3)
	check(t, slept == want, "Sleep(1s) with drift 0.5e-3 lasted %v, want %v", slept, want)
	check(t, sleptUntil >= want-time.Microsecond && sleptUntil <= want+time.Microsecond, "SleepUntil(Now+1s) lasted %v, want about %v", sleptUntil, want)
	check(t, afterAt == want, "AfterFunc(1s) fired after %v, want %v", afterAt, want)
}

// The timers a paused node's contexts set fire late, on resume.
func TestNodePauseHoldsAfterFunc(t *testing.T) {
	var fired []time.Duration
	start(t, deterministic.Seeded(7), func(ctx *deterministic.Context) {
		t0 := ctx.Now()
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(nctx simrt.Context) {
			nctx.AfterFunc(100*time.Millisecond, func() { fired = append(fired, ctx.Now().Sub(t0)) })
			stopped := nctx.AfterFunc(150*time.Millisecond, func() { fired = append(fired, -1) })
			nctx.Sleep(5 * time.Millisecond)
			check(t, stopped.Stop(), "Stop of a pending timer")
			check(t, !stopped.Stop(), "a second Stop")
			nctx.Sleep(time.Hour)
		}})
		ctx.Sleep(20 * time.Millisecond)
		must(t, n.Pause(0))
		ctx.Sleep(time.Second)
		check(t, len(fired) == 0, "a paused node's timer fired: %v", fired)
		must(t, n.Resume())
		ctx.Sleep(10 * time.Millisecond)
	})
	check(t, len(fired) == 1 && fired[0] >= 1020*time.Millisecond && fired[0] < 1030*time.Millisecond, "the timer fired at %v, on resume", fired)
}

// A lease that trusts the holder's clock is safe while the drift between
// nodes stays within the bound it was sized for, and gives two leaders when
// the drift exceeds it.
func TestNodeLeaseUnderDrift(t *testing.T) {
	const lease = 10 * time.Second
	const bound = 0.01 // the lease assumes clocks differ by at most 1%
	run := func(drift float64) (overlap bool) {
		start(t, deterministic.Seeded(8), func(ctx *deterministic.Context) {
			var holder string
			var leaders int
			// The leader holds the lease for lease·(1-bound) of its own
			// clock; the follower waits lease of its own clock before
			// taking over.
			leader := func(nctx simrt.Context) {
				holder, leaders = "a", leaders+1
				nctx.Sleep(time.Duration(float64(lease) * (1 - bound)))
				if holder == "a" {
					holder = ""
				}
				leaders--
			}
			follower := func(nctx simrt.Context) {
				nctx.Sleep(lease)
				holder, leaders = "b", leaders+1
				if leaders > 1 {
					overlap = true
				}
				nctx.Sleep(time.Second)
				leaders--
			}
			addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: leader, Clock: deterministic.NodeClock{Drift: drift}})
			addNode(t, ctx, deterministic.NodeConfig{Name: "b", Host: hostB, Main: follower})
			ctx.Sleep(2 * lease)
		})
		return overlap
	}
	check(t, !run(0), "no drift: one leader at a time")
	check(t, !run(bound/2), "drift within the bound: one leader at a time")
	check(t, run(2*bound), "drift past the bound: two leaders")
}

// Two runs of one seed with nodes, kills, pauses and clocks give the same
// audit state, and a node's lifecycle changes it.
func TestNodeDeterministic(t *testing.T) {
	run := func(seed uint64, kill bool) string {
		var state string
		start(t, deterministic.Seeded(seed), func(ctx *deterministic.Context) {
			for i, h := range []netip.Addr{hostA, hostB} {
				addNode(t, ctx, deterministic.NodeConfig{Name: string(rune('a' + i)), Host: h, Clock: deterministic.NodeClock{Drift: 1e-4 * float64(i)}, Main: func(nctx simrt.Context) {
					l, err := nctx.Bind(netip.AddrPortFrom(h, 80))
					must(t, err)
					for {
						_, sink, _, err := l.Accept()
						if err != nil {
							return
						}
						_ = sink.Send([]byte{byte(nctx.Rand().IntN(256))})
						nctx.Sleep(time.Duration(nctx.Rand().IntN(100)) * time.Millisecond)
					}
				}})
			}
			b := ctx.NodeByName("b")
			for i := 0; i < 20; i++ {
				ctx.Sleep(7 * time.Millisecond)
				_, st, err := ctx.WithHost(hostC).Dial(netip.AddrPortFrom(hostA, 80))
				if err == nil {
					_, _ = st.Recv(1)
				}
				if kill && i == 5 {
					must(t, b.Kill())
				}
				if kill && i == 8 {
					must(t, b.Restart())
					must(t, b.Pause(30*time.Millisecond))
				}
			}
			state = ctx.Auditor().State()
		})
		return state
	}
	s1, s2, s3 := run(9, true), run(9, true), run(9, false)
	check(t, s1 == s2, "same seed, same audit state: %s vs %s", s1, s2)
	check(t, s1 != s3, "the lifecycle ops are audited")
}

// A checkpoint carries each node's disk by name, after the crash that ends
// the run: synced data comes back to the node of the same name.
func TestNodeCheckpointCarriesDisks(t *testing.T) {
	cp := startAndRecover(t, deterministic.Seeded(10), func(ctx *deterministic.Context) {
		addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(nctx simrt.Context) {
			b, _ := open(t, nctx, "p", "x")
			must(t, b.WriteAt(0, simrt.WriteSync, []byte("durable")))
			must(t, b.WriteAt(7, 0, []byte("+lost")))
		}})
		ctx.Sleep(10 * time.Millisecond)
		_, n := open(t, ctx, "p", "x")
		check(t, n == 0, "a node's disk is its own, not the runtime's")
	})
	var got string
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(nctx simrt.Context) {
			b, n := open(t, nctx, "p", "x")
			got = readAll(t, b, int(n))
		}})
		ctx.Sleep(10 * time.Millisecond)
	})
	check(t, got == "durable", "the node got its disk back: %q", got)
}

// A node's metrics and log lines carry its name as attribute node, and its
// tasks' reports name its host.
func TestNodeAttributes(t *testing.T) {
	var buf bytes.Buffer
	var tasks []deterministic.TaskState
	var metricsText string
	start(t, deterministic.New(deterministic.Config{Hooks: deterministic.Hooks{LogHandler: slog.NewTextHandler(&buf, nil)}}), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(nctx simrt.Context) {
			nctx.Counter("requests", "Requests served.").Inc()
			simrt.Logger(nctx).Info("hello")
			nctx.Sleep(time.Hour)
		}})
		ctx.Sleep(10 * time.Millisecond)
		tasks = n.Tasks()
		metricsText = ctx.Encode()
	})
	check(t, strings.Contains(buf.String(), "node=a"), "log line without node=a: %s", buf.String())
	check(t, strings.Contains(metricsText, `node="a"`), "metrics without node=\"a\": %s", metricsText)
	check(t, len(tasks) == 1 && tasks[0].Node == hostA, "Tasks() = %v", tasks)
}

// A paused node can be killed (its held tasks unwind) and restarted; a
// Timeout on a node's context runs on the node's clock.
func TestNodeKillPausedAndTimeoutOnNodeClock(t *testing.T) {
	var unwound bool
	var timedOut time.Duration
	start(t, deterministic.Seeded(11), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Clock: deterministic.NodeClock{Drift: 0.25}, Main: func(nctx simrt.Context) {
			if incarnation(nctx) == 2 {
				g0 := ctx.Now()
				err := simrt.Timeout(nctx, time.Second, func() error { nctx.Sleep(time.Hour); return nil })
				check(t, errors.Is(err, simrt.ErrTimeout), "Timeout: %v", err)
				timedOut = ctx.Now().Sub(g0)
				return
			}
			defer func() { unwound = true }()
			nctx.Sleep(50 * time.Millisecond)
			nctx.Sleep(time.Hour)
		}})
		ctx.Sleep(10 * time.Millisecond)
		must(t, n.Pause(0))
		ctx.Sleep(100 * time.Millisecond) // the sleep ended: the task is held
		must(t, n.Kill())
		ctx.Sleep(10 * time.Millisecond)
		check(t, unwound, "the killed node's held task unwound")
		check(t, len(n.Tasks()) == 0, "no task left: %v", n.Tasks())
		must(t, n.Restart())
		ctx.Sleep(2 * time.Second)
	})
	check(t, timedOut == 1250*time.Millisecond, "Timeout(1s) with drift 0.25 took %v of global time", timedOut)
}

// A node's disk fault is its own, outlives its processes and shows in
// Faults with the node lifecycle counts.
func TestNodeDiskFaultAndCounts(t *testing.T) {
	var errs []error
	start(t, deterministic.Seeded(12), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(nctx simrt.Context) {
			_, _, err := nctx.Open("p", []byte("x"))
			errs = append(errs, err)
			nctx.Sleep(time.Hour)
		}})
		n.SetDiskFault(faulty.DiskFault{Fail: true})
		ctx.Sleep(10 * time.Millisecond)
		_, _, err := ctx.Open("p", []byte("x"))
		must(t, err) // the runtime's disk is not the node's
		must(t, n.Kill())
		must(t, n.Restart())
		ctx.Sleep(10 * time.Millisecond)
		check(t, n.DiskFault().Fail, "the disk fault outlives the process")
		n.SetDiskFault(faulty.DiskFault{})
		must(t, n.Pause(time.Second))
		n.JumpClock(time.Second)
		must(t, n.PowerOff())
		got := fault.Counts{}
		for _, f := range ctx.Faults() {
			got[f.Kind] = f.Count
		}
		for kind, want := range (fault.Counts{fault.NodeKill: 1, fault.NodePowerOff: 1, fault.NodePause: 1, fault.NodeClock: 1, fault.HostReset: 2, fault.DiskFail: 2}) {
			check(t, got[kind] == want, "Faults()[%s] = %d, want %d (%v)", kind, got[kind], want, got)
		}
	})
	check(t, len(errs) == 2 && errors.Is(errs[0], simrt.ErrIO) && errors.Is(errs[1], simrt.ErrIO), "opens on the failing disk: %v", errs)
}
