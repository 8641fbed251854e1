package simtest_test

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/nemesis"
	"github.com/simrt/simrt/simtest"
)

// pingCluster adds three nodes; each pings the next every 20ms and counts
// the replies it gets, in pongs.
func pingCluster(t *testing.T, ctx *deterministic.Context, pongs []int) {
	hosts := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")}
	for i, h := range hosts {
		next := hosts[(i+1)%len(hosts)]
		main := func(ctx simrt.Context) {
			l, err := ctx.Bind(netip.AddrPortFrom(h, 9000))
			if err != nil {
				return
			}
			simrt.Spawn(ctx.Child("pinger"), func(ctx simrt.Context) struct{} {
				for {
					ctx.Sleep(20 * time.Millisecond)
					sink, stream, err := ctx.Dial(netip.AddrPortFrom(next, 9000))
					if err != nil {
						continue
					}
					for sink.Send([]byte{1}) == nil {
						if _, err := stream.Recv(1); err != nil {
							break
						}
						pongs[i]++
						ctx.Sleep(20 * time.Millisecond)
					}
				}
			})
			for {
				_, sink, stream, err := l.Accept()
				if err != nil {
					return
				}
				simrt.Spawn(ctx.Child("echo"), func(ctx simrt.Context) struct{} {
					for {
						b, err := stream.Recv(1)
						if err != nil || sink.Send(b) != nil {
							return struct{}{}
						}
					}
				})
			}
		}
		if _, err := ctx.AddNode(deterministic.NodeConfig{Name: fmt.Sprintf("n%d", i+1), Host: h, Main: main}); err != nil {
			t.Fatal(err)
		}
	}
}

func clusterTest(t *testing.T, ctx *deterministic.Context) {
	pongs := make([]int, 3)
	pingCluster(t, ctx, pongs)
	m := simtest.Nemesis(t, ctx, nemesis.Config{Heal: 3 * time.Second})
	m.WaitHealed(ctx)
	snapshot := slicesClone(pongs)
	// A lost send can be retransmitted 8 times, 51s in all (simnet's
	// Link.Loss): a bound shorter than that fails on the seeds whose
	// schedule loses one send four times in a row.
	err := m.Liveness(ctx, time.Minute, func() bool {
		for i := range pongs {
			if pongs[i] <= snapshot[i] {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
}

func slicesClone(s []int) []int { return append([]int(nil), s...) }

func TestNemesisCluster(t *testing.T) {
	simtest.Explore(t, deterministic.Config{}, clusterTest)
}

func TestHelperNemesisFailure(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Run(t, deterministic.Config{Seed: 7}, func(t *testing.T, ctx *deterministic.Context) {
		clusterTest(t, ctx)
		t.Errorf("planted failure after the liveness phase")
	})
}

var reReplayLine = regexp.MustCompile(`(?m)\breplay: .*$`)

var reSchedule = regexp.MustCompile(`schedule written to (\S+); replay it: .* -simrt.schedule=(\S+)`)

func TestNemesisScheduleInReportAndReplay(t *testing.T) {
	out := runHelper(t, "TestHelperNemesisFailure")
	for _, want := range []string{"simrt: seed 7 ran a schedule drawn from the seed", "nemesis schedule (", "3s heal [done]", "-simrt.seed=7 -simrt.schedule="} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	m := reSchedule.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no schedule file in:\n%s", out)
	}
	defer os.Remove(m[1])
	s, err := nemesis.ReadSchedule(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) == 0 {
		t.Fatalf("empty schedule in %s", m[1])
	}
	first := parseReport(t, out, "7")
	again := runHelper(t, "TestHelperNemesisFailure", "-simrt.schedule="+m[1])
	if !strings.Contains(again, "ran a schedule read from "+m[1]) {
		t.Fatalf("the replay did not read the file:\n%s", again)
	}
	// Every replay line of the rerun carries the schedule file: without
	// it the seed alone draws another schedule.
	for _, l := range reReplayLine.FindAllString(again, -1) {
		if !strings.Contains(l, " -simrt.schedule="+m[1]) {
			t.Errorf("replay line %q lacks -simrt.schedule=%s", l, m[1])
		}
	}
	// The file's name holds the package's directory: another package's
	// TestHelperNemesisFailure seed 7 writes another file.
	if wd, _ := os.Getwd(); !namesDir(m[1], wd) {
		t.Errorf("schedule file %s: want the package directory %s in its name", m[1], wd)
	}
	if r := parseReport(t, again, "7"); r.state != first.state {
		t.Fatalf("seed 7 with its schedule file ends in audit state %s, drawn from the seed %s", r.state, first.state)
	}
	// An edited schedule (its last fault dropped) runs too, and differs.
	s.Events = s.Events[:len(s.Events)-1]
	edited := m[1] + ".edited"
	if err := s.WriteFile(edited); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(edited)
	if r := parseReport(t, runHelper(t, "TestHelperNemesisFailure", "-simrt.schedule="+edited), "7"); r.state == first.state {
		t.Errorf("an edited schedule gives the same audit state %s", r.state)
	}
	bad := m[1] + ".bad"
	os.WriteFile(bad, []byte("1s explode {n1} for 1s\n5s heal\n"), 0o644)
	defer os.Remove(bad)
	if out := runHelper(t, "TestHelperNemesisFailure", "-simrt.schedule="+bad); !strings.Contains(out, `line 1: nemesis: unknown fault kind "explode"`) {
		t.Errorf("a bad schedule file:\n%s", out)
	}
}

// namesDir reports whether a schedule file's name holds the directory dir,
// spelt as simtest spells it: every character but an ASCII letter, digit,
// '-' or '_' (a '/', but also a '.' or a space) becomes '_'.
func namesDir(file, dir string) bool {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.TrimPrefix(filepath.ToSlash(dir), "/"))
	return strings.Contains(filepath.Base(file), safe)
}

// TestScheduleFileInDottedDirectory: run from a directory whose path holds a
// '.' (a checkout under /tmp/x.y), the schedule file still names that
// directory. TestNemesisScheduleInReportAndReplay failed there, because it
// looked for the path with only its '/' replaced.
func TestScheduleFileInDottedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.y", "simtest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	out := runHelper(t, "TestHelperNemesisFailure")
	m := reSchedule.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no schedule file in:\n%s", out)
	}
	defer os.Remove(m[1])
	if !namesDir(m[1], dir) {
		t.Errorf("schedule file %s: want the directory %s in its name", m[1], dir)
	}
}

// lonelyCluster is pingCluster with a planted bug: a watcher notes whether
// n2 got a pong in the last 300ms ("lonely") while it runs, and fails the
// test when n2 restarts after dying lonely. So the test fails only when n2
// is killed while cut off from n3 (the node it pings), not on a partition
// or a kill alone.
func lonelyCluster(t *testing.T, ctx *deterministic.Context) {
	pongs := make([]int, 3)
	pingCluster(t, ctx, pongs)
	n2 := ctx.NodeByName("n2")
	simrt.Spawn(ctx.Child("watch"), func(ctx simrt.Context) struct{} {
		last, heard, lonely, inc := pongs[1], ctx.Now(), false, n2.Incarnation()
		for {
			ctx.Sleep(10 * time.Millisecond)
			if n2.Incarnation() != inc { // n2 restarted: what did its disk say?
				if lonely {
					t.Errorf("planted: n2 restarted lonely")
					return struct{}{}
				}
				inc, heard = n2.Incarnation(), ctx.Now()
			}
			if n2.State() != deterministic.NodeRunning {
				continue
			}
			if pongs[1] != last {
				last, heard = pongs[1], ctx.Now()
			}
			lonely = ctx.Now().Sub(heard) > 300*time.Millisecond
		}
	})
	m := simtest.Nemesis(t, ctx, nemesis.Config{Heal: 10 * time.Second, NoSwarm: true, Faults: []nemesis.Fault{
		{Kind: nemesis.Partition}, {Kind: nemesis.Kill}, {Kind: nemesis.Pause}, {Kind: nemesis.DiskSlow}, {Kind: nemesis.Latency}}})
	m.WaitHealed(ctx)
}

func TestHelperShrinkSchedule(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.Explore(t, deterministic.Config{}, lonelyCluster)
}

// TestShrinkNemesisFailure: -simrt.shrink on a failure the nemesis
// causes (n2 killed while cut off) shrinks the fault schedule, not only
// the decision stream. Before, it shrank the stream alone: seed 10 went
// "from 3256 decisions (3256 non-default) to 3319 (0 non-default)", a
// longer stream and all 12 faults. The result replays with the one
// command printed, and every failure report ends with the shrink
// command.
func TestShrinkNemesisFailure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lonely.stream")
	log := runHelper(t, "TestHelperShrinkSchedule", "-simrt.seed=10", "-simrt.shrink", "-simrt.shrinkout="+out)
	if !strings.Contains(log, "shrink: go test -run '^TestHelperShrinkSchedule$' ./simtest -simrt.seed=10 -simrt.shrink\n") {
		t.Errorf("the failure report does not end with the shrink command:\n%s", log)
	}
	r := parseShrunk(t, log)
	if r.class != `the test failed (t.Error) inside the simulation in task "watch"` {
		t.Errorf("failure class %q", r.class)
	}
	if r.toFaults > 2 || r.toFaults >= r.fromFaults {
		t.Errorf("shrank from %d faults to %d, want 2 or fewer (the cut and the kill):\n%s", r.fromFaults, r.toFaults, log)
	}
	if r.toK >= r.fromK {
		t.Errorf("%d decisions not the default left of %d", r.toK, r.fromK)
	}
	// A stream step that reports a shrink reports a smaller stream.
	for _, m := range regexp.MustCompile(`stream: ([\d,]+) decisions \(([\d,]+) not the default\) -> ([\d,]+) \(([\d,]+)\)`).FindAllStringSubmatch(log, -1) {
		n := func(s string) int { return atoi(strings.ReplaceAll(s, ",", "")) }
		if n(m[3]) > n(m[1]) || n(m[3]) == n(m[1]) && n(m[4]) >= n(m[2]) {
			t.Errorf("a stream reported shrunk is not smaller: %s", m[0])
		}
	}
	if r.schedule == "" {
		t.Fatalf("no schedule saved:\n%s", log)
	}
	want := fmt.Sprintf("go test -run '^TestHelperShrinkSchedule$' ./simtest -simrt.seed=10 -simrt.replay=%s -simrt.schedule=%s", out, r.schedule)
	if r.replayLine != want {
		t.Errorf("replay command\n %s\nwant\n %s", r.replayLine, want)
	}
	replay := runHelper(t, "TestHelperShrinkSchedule", "-simrt.seed=10", "-simrt.replay="+out, "-simrt.schedule="+r.schedule)
	if !strings.Contains(replay, "planted: n2 restarted lonely") || !strings.Contains(replay, fmt.Sprintf("nemesis schedule (%d faults", r.toFaults)) {
		t.Fatalf("the shrunk run replayed:\n%s", replay)
	}
	// The old flag is the same shrink.
	if old := runHelper(t, "TestHelperShrinkSchedule", "-simrt.seed=10", "-simrt.shrinkschedule", "-simrt.shrinkout="+out); parseShrunk(t, old).toFaults != r.toFaults {
		t.Errorf("-simrt.shrinkschedule shrinks otherwise:\n%s", old)
	}
}

// TestInevitableKeepsTheSchedule: the continuations of -simrt.inevitable
// run the failing run's fault schedule. Before, each drew a schedule of
// its own from its fresh seed, and seed 10 "became inevitable at decision
// #3255 of 3256" with "1 of 20 runs" failing; its faults alone decide it.
func TestInevitableKeepsTheSchedule(t *testing.T) {
	log := runHelper(t, "TestHelperShrinkSchedule", "-simrt.seed=10", "-simrt.inevitable", "-simrt.continuations=10")
	want := "simrt: seed 10 (the test failed (t.Error) inside the simulation in task \"watch\") fails whatever its decisions: 10 of 10 fresh seeds fail the same way (threshold 95%); the failure is decided by its fault schedule (12 faults"
	if !strings.Contains(log, want) {
		t.Fatalf("want %q in:\n%s", want, log)
	}
}
