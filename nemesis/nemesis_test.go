package nemesis

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
)

var five = []string{"n1", "n2", "n3", "n4", "n5"}

// everything enables every kind without swarm testing, over a long run.
var everything = Config{NoSwarm: true, Heal: 120 * time.Second}

func TestEventString(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{At: 1250 * time.Millisecond, Kind: Partition, Nodes: []string{"n1", "n2"}, Other: []string{"n3", "n4", "n5"}, For: 800 * time.Millisecond},
			"1.25s partition {n1,n2} | {n3,n4,n5} for 800ms"},
		{Event{At: time.Second, Kind: Cut, Nodes: []string{"n1"}, Other: []string{"n2"}, For: time.Second}, "1s cut {n1} -> {n2} for 1s"},
		{Event{At: 3 * time.Second, Kind: Latency, Nodes: []string{"n2"}, Delay: 120 * time.Millisecond, Jitter: 30 * time.Millisecond, For: 2 * time.Second},
			"3s latency {n2} 120ms jitter 30ms for 2s"},
		{Event{At: 4 * time.Second, Kind: Loss, Nodes: []string{"n3"}, Rate: 0.1, For: time.Second}, "4s loss {n3} 0.1 for 1s"},
		{Event{At: 5 * time.Second, Kind: ClockDrift, Nodes: []string{"n1"}, Rate: 0.0002, For: 10 * time.Second}, "5s clock-drift {n1} +0.0002 for 10s"},
		{Event{At: 5 * time.Second, Kind: ClockJump, Nodes: []string{"n1"}, Delay: -time.Second, For: 10 * time.Second}, "5s clock-jump {n1} -1s for 10s"},
		{Event{At: 0, Kind: PowerLoss, Nodes: []string{"n1", "n2"}, For: time.Second}, "0s power-loss {n1,n2} for 1s"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		back, err := ParseEvent(c.want)
		if err != nil || !reflect.DeepEqual(back, c.e) {
			t.Errorf("ParseEvent(%q) = %+v, %v; want %+v", c.want, back, err, c.e)
		}
	}
}

func TestDrawIsDeterministic(t *testing.T) {
	a, err := Draw(SeedRand(7), five, everything)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Draw(SeedRand(7), five, everything)
	c, _ := Draw(SeedRand(8), five, everything)
	if a.String() != b.String() {
		t.Fatalf("one seed drew two schedules:\n%s\n%s", a, b)
	}
	if a.String() == c.String() {
		t.Fatalf("seeds 7 and 8 drew the same schedule")
	}
	if len(a.Events) < 50 {
		t.Fatalf("only %d events in 120s", len(a.Events))
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := len(a.Kinds()); got != len(Kinds()) {
		t.Errorf("without swarm testing a long schedule uses %d of %d kinds: %v", got, len(Kinds()), a.Kinds())
	}
}

func TestDrawRespectsLimits(t *testing.T) {
	for seed := range uint64(20) {
		s, err := Draw(SeedRand(seed), five, everything)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range s.Events {
			if e.At+e.For > s.Heal {
				t.Fatalf("seed %d: %s ends after the heal", seed, e)
			}
			if e.Kind.class() != classProcess || e.Kind == PowerLoss {
				continue
			}
			down := map[string]bool{e.Nodes[0]: true}
			for _, o := range s.Events[:i] {
				if o.Kind.class() == classProcess && o.At+o.For > e.At {
					for _, n := range o.Nodes {
						if down[n] && o.Kind != PowerLoss && n == e.Nodes[0] {
							t.Fatalf("seed %d: %s overlaps %s", seed, e, o)
						}
						down[n] = true
					}
				}
			}
			if len(down) > 2 {
				t.Fatalf("seed %d: %s takes %d of 5 nodes down (MaxDown is 2)", seed, e, len(down))
			}
		}
	}
}

func TestSwarmSubsetsDiffer(t *testing.T) {
	cfg := Config{Heal: 120 * time.Second}
	subsets := map[string]bool{}
	noPartition := 0
	for seed := range uint64(30) {
		s, err := Draw(SeedRand(seed), five, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ks := s.Kinds()
		if len(ks) == 0 || len(ks) == len(Kinds()) {
			t.Errorf("seed %d: swarm subset of %d kinds: %v", seed, len(ks), ks)
		}
		subsets[fmt.Sprint(ks)] = true
		if !strings.Contains(s.String(), " partition ") {
			noPartition++
		}
	}
	if len(subsets) < 25 {
		t.Errorf("30 seeds drew only %d distinct swarm subsets", len(subsets))
	}
	if noPartition == 0 || noPartition == 30 {
		t.Errorf("%d of 30 seeds have no partition", noPartition)
	}
}

func TestScheduleFileRoundTrip(t *testing.T) {
	s, err := Draw(SeedRand(3), five, everything)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "schedule.txt")
	if err := s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSchedule(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("read back a different schedule:\n%s\nwant:\n%s", back, s)
	}
}

func TestParseScheduleErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1s partition {n1} | {n2} for 1s\n", "ends without its heal line"},
		{"1s explode {n1} for 1s\n5s heal\n", `line 1: nemesis: unknown fault kind "explode"`},
		{"# c\n\n1s kill {n1} for 1s\n2s kill {N1} for 1s\n5s heal\n", `line 4: bad node name "N1"`},
		{"1s kill {n1,n2} for 1s\n5s heal\n", "line 1: kill: want one node, got 2"},
		{"1s kill {n1} for -1s\n5s heal\n", "line 1: kill: duration -1s is not positive"},
		{"1s kill {n1} 1s\n5s heal\n", `line 1: kill: want "for", got "1s"`},
		{"1s kill {n1} for 1s extra\n5s heal\n", `line 1: kill: unexpected "extra"`},
		{"2s kill {n1} for 1s\n1s kill {n2} for 1s\n5s heal\n", "line 2: event at 1s starts before"},
		{"1s cut {n1} | {n2} for 1s\n5s heal\n", `line 1: cut: want "->", got "|"`},
		{"1s loss {n1} 2 for 1s\n5s heal\n", "line 1: loss: rate 2 not in (0, 1]"},
		{"1s latency {n1} 5ms for 1s\n5s heal\n", `want "jitter"`},
		{"xs kill {n1} for 1s\n5s heal\n", `line 1: bad time "xs"`},
		{"5s heal\n6s kill {n1} for 1s\n", "line 2: \"6s kill {n1} for 1s\" after the heal line"},
		{"6s kill {n1} for 1s\n5s heal\n", "starts at or after the heal"},
		{"1s partition {n1} | {n1} for 1s\n5s heal\n", "line 1: partition: node n1 is on both sides"},
		{"1s partition {n1,n2} | {n3,n2} for 1s\n5s heal\n", "line 1: partition: node n2 is on both sides"},
		{"1s partition {n1} | {} for 1s\n5s heal\n", `line 1: empty node group "{}"`},
		{"1s partition {n1,n1} | {n2} for 1s\n5s heal\n", "line 1: partition: node n1 named twice in {n1,n1}"},
		{"1s cut {n2} -> {n2} for 1s\n5s heal\n", "line 1: cut: node n2 is on both sides"},
		{"1s clog {n3} -> {n3} for 1s\n5s heal\n", "line 1: clog: node n3 is on both sides"},
		{"1s bridge {n1,n2} | {n1} for 1s\n5s heal\n", "line 1: bridge: each side of {n1,n2} | {n1} needs a node the other side lacks"},
		{"1s power-loss {n1,n2,n1} for 1s\n5s heal\n", "line 1: power-loss: node n1 named twice"},
	} {
		_, err := ParseSchedule([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSchedule(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
	if _, err := ReadSchedule(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("ReadSchedule of a missing file succeeded")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		nodes []string
		cfg   Config
		want  string
	}{
		{five, Config{}, "Config.Heal 0s is not positive"},
		{nil, Config{Heal: time.Second}, "no nodes"},
		{[]string{"n1", "n1"}, Config{Heal: time.Second}, `node "n1" listed twice`},
		{[]string{"N 1"}, Config{Heal: time.Second}, `bad node name "N 1"`},
		{[]string{"9n"}, Config{Heal: time.Second}, `bad node name "9n"`},
		{five, Config{Heal: time.Second, Faults: []Fault{}}, "Config.Faults is empty"},
		{five, Config{Heal: time.Second, Faults: []Fault{{Kind: 99}}}, "unknown kind 99"},
		{five, Config{Heal: time.Second, Faults: []Fault{{Kind: Kill}, {Kind: Kill}}}, "kind kill enabled twice"},
		{five, Config{Heal: time.Second, Faults: []Fault{{Kind: Kill, Weight: -1}}}, "negative weight"},
		{five, Config{Heal: time.Second, Faults: []Fault{{Kind: Kill, Min: 2 * time.Second, Max: time.Second}}}, "is not a range"},
		{five, Config{Heal: time.Second, Start: 2 * time.Second}, "Config.Start 2s not in"},
		{five, Config{Heal: time.Second, GapMin: 2, GapMax: 1}, "gap"},
		{five, Config{Heal: time.Second, MaxDown: 6}, "Config.MaxDown 6"},
		{five, Config{Heal: time.Second, MaxDrift: 0.5}, "Config.MaxDrift 0.5"},
		{five, Config{Heal: time.Second, MaxLoss: 1.5}, "Config.MaxLoss 1.5"},
		// Tiny gaps: an error, not a schedule of billions of faults.
		{five, Config{Heal: 120 * time.Second, GapMin: 1, GapMax: 1}, "Config.GapMin 1ns is below the minimum gap of 1ms"},
		{five, Config{Heal: 120 * time.Second, GapMax: time.Millisecond}, "Config.GapMin 0s is below the minimum gap of 1ms"},
		{five, Config{Heal: time.Hour, GapMin: time.Millisecond, GapMax: time.Second}, "allows 3600000 faults, more than 100000 (MaxFaults)"},
	} {
		_, err := Draw(SeedRand(1), c.nodes, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Draw(%v, %+v) = %v, want an error containing %q", c.nodes, c.cfg, err, c.want)
		}
	}
}

// runFake runs s against c in a fresh runtime; during runs in the root
// after the nemesis started.
func runFake(t *testing.T, c *fakeCluster, s Schedule, during func(ctx *deterministic.Context, m *Nemesis)) *Nemesis {
	t.Helper()
	var m *Nemesis
	var err error
	quiet().Start(func(ctx *deterministic.Context) {
		t0 := ctx.Now()
		c.now = func() time.Duration { return ctx.Now().Sub(t0) }
		if m, err = Start(ctx, c.cluster(), s); err != nil {
			return
		}
		if during != nil {
			during(ctx, m)
		}
		m.WaitHealed(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHealRestoresEverything(t *testing.T) {
	c := newFake(5)
	s, err := Draw(SeedRand(11), five, Config{NoSwarm: true, Heal: 60 * time.Second, GapMin: 10 * time.Millisecond, GapMax: 200 * time.Millisecond,
		Faults: withDurations(10*time.Second, 30*time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	var mid string
	m := runFake(t, c, s, func(ctx *deterministic.Context, m *Nemesis) {
		ctx.Sleep(59 * time.Second)
		mid = c.clean()
	})
	if mid == "" {
		t.Fatal("nothing was faulty just before the heal: the test tests nothing")
	}
	if got := c.clean(); got != "" {
		t.Fatalf("after the heal:\n%s", got)
	}
	if !m.Healed() {
		t.Fatal("Healed() = false after the heal")
	}
	if !strings.Contains(m.Report(), "1m0s heal [done]") {
		t.Errorf("report:\n%s", m.Report())
	}
	for _, f := range m.Effects() {
		if len(f.Errs) > 0 {
			t.Errorf("%s", f)
		}
	}
}

// withDurations enables every kind lasting between lo and hi.
func withDurations(lo, hi time.Duration) []Fault {
	var fs []Fault
	for _, k := range Kinds() {
		fs = append(fs, Fault{Kind: k, Min: lo, Max: hi})
	}
	return fs
}

func TestOverlappingCutsHealOnce(t *testing.T) {
	c := newFake(3)
	s, err := ParseSchedule([]byte(`1s partition {n1} | {n2,n3} for 5s
2s isolate {n1} for 1s
2s cut {n1} -> {n2} for 1s
4s isolate {n1} for 5s
5s isolate {n1} for 1s
10s heal
`))
	if err != nil {
		t.Fatal(err)
	}
	var at3, at7 bool
	runFake(t, c, s, func(ctx *deterministic.Context, m *Nemesis) {
		ctx.Sleep(3500 * time.Millisecond)
		at3 = c.cut[hosts(c, "n1", "n2")] // the partition still holds after the cut ended
		ctx.Sleep(4 * time.Second)
		at7 = c.iso[c.nodes[0].host] // isolated 4s..9s though 5s..6s ended
	})
	if !at3 || !at7 {
		t.Fatalf("overlapping faults healed early: cut at 3.5s %v, isolated at 7.5s %v\n%s", at3, at7, strings.Join(c.calls, "\n"))
	}
	if got := c.clean(); got != "" {
		t.Fatal(got)
	}
}

func TestStartErrors(t *testing.T) {
	c := newFake(2)
	quiet().Start(func(ctx *deterministic.Context) {
		s := Schedule{Heal: time.Second, Events: []Event{{At: 0, Kind: Kill, Nodes: []string{"n9"}, For: time.Second}}}
		if _, err := Start(ctx, c.cluster(), s); err == nil || !strings.Contains(err.Error(), `no node "n9" (the cluster has {n1,n2})`) {
			t.Errorf("unknown node: %v", err)
		}
		if _, err := Start(ctx, c.cluster(), Schedule{}); err == nil {
			t.Error("a schedule without a heal time started")
		}
		if _, err := Start(ctx, Cluster{}, Schedule{Heal: time.Second}); err == nil {
			t.Error("a cluster without a network started")
		}
	})
}

func TestLivenessNamesBlockedTasks(t *testing.T) {
	c := newFake(3)
	s := Schedule{Heal: 2 * time.Second, Events: []Event{{At: time.Second, Kind: Kill, Nodes: []string{"n2"}, For: 5 * time.Second}}}
	var lerr, ok error
	runFake(t, c, s, func(ctx *deterministic.Context, m *Nemesis) {
		lerr = m.Liveness(ctx, 3*time.Second, func() bool { return false })
		start := ctx.Now()
		ok = m.Liveness(ctx, 3*time.Second, func() bool { return ctx.Now().Sub(start) > time.Second })
	})
	var le *LivenessError
	if !errors.As(lerr, &le) {
		t.Fatalf("Liveness = %v, want a *LivenessError", lerr)
	}
	msg := lerr.Error()
	for _, want := range []string{"no progress after heal", "within 3s of the heal at 2s", "node n2 (up)", `"n2/main"`, "receive on chan made at fake.go:1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("liveness error lacks %q:\n%s", want, msg)
		}
	}
	if ok != nil {
		t.Errorf("a predicate that holds after 1s failed: %v", ok)
	}
}

func hosts(c *fakeCluster, a, b string) [2]netip.Addr {
	var out [2]netip.Addr
	for _, n := range c.nodes {
		if n.name == a {
			out[0] = n.host
		}
		if n.name == b {
			out[1] = n.host
		}
	}
	return out
}

// quiet returns a runner that discards the log.
func quiet() *deterministic.Runner {
	return deterministic.New(deterministic.Config{Seed: 1, Hooks: deterministic.Hooks{LogHandler: slog.DiscardHandler}})
}

// Draw and the shrinkers panic at the call, naming themselves, when given
// a nil generator or function, rather than as a nil dereference later.
func TestNilArgumentsPanic(t *testing.T) {
	s := Schedule{Events: []Event{{At: time.Second, Kind: Kill, Nodes: []string{"n1"}, For: time.Second}}, Heal: 5 * time.Second}
	for _, c := range []struct {
		want string
		call func()
	}{
		{"nemesis.Draw: nil *rand.Rand (use SeedRand)", func() { Draw(nil, five, everything) }},
		{"nemesis.Shrink called with a nil function", func() { Shrink(s, nil) }},
		{"nemesis.ShrinkWithin called with a nil function", func() { ShrinkWithin(s, nil, 10) }},
		{"nemesis.ShrinkRun called with a nil function", func() { ShrinkRun(deterministic.Config{}, s, 10, nil) }},
	} {
		got := func() (r any) {
			defer func() { r = recover() }()
			c.call()
			return nil
		}()
		if fmt.Sprint(got) != c.want {
			t.Errorf("panic = %v, want %q", got, c.want)
		}
	}
}
