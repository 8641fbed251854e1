package deterministic

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

func TestMetricsLabelEmpty(t *testing.T) {
	mustPanic(t, "label must start with [a-zA-Z]", func() {
		New(Config{}).Start(func(ctx *Context) { ctx.Child("") })
	})
}

func TestMetricsLabelInvalidFirstChar(t *testing.T) {
	mustPanic(t, "label must start with [a-zA-Z]", func() {
		New(Config{}).Start(func(ctx *Context) { ctx.Child("1invalid") })
	})
}

func TestMetricsLabelInvalidChar(t *testing.T) {
	mustPanic(t, "label must only contain [a-zA-Z0-9_]", func() {
		New(Config{}).Start(func(ctx *Context) { ctx.Child("invalid-label") })
	})
}

func TestMetricsLabelReservedPrefix(t *testing.T) {
	for _, label := range []string{"runtime", "runtimes", "runtime_x"} {
		mustPanic(t, "using runtime label is not allowed", func() {
			New(Config{}).Start(func(ctx *Context) { ctx.Child(label) })
		})
	}
	New(Config{}).Start(func(ctx *Context) { ctx.Child("foo").Child("runtime") })
}

func TestMetricsDuplicateAttributeOverwrites(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		c := ctx.Child("test").WithAttribute("epoch", "old").WithAttribute("epoch", "new")
		got := c.Name().Attributes
		if len(got) != 1 || got[0] != (simrt.Attribute{Key: "epoch", Value: "new"}) {
			t.Errorf("attributes %v", got)
		}
	})
}

func TestMetricsEncodeDeterministic(t *testing.T) {
	run := func() string {
		var out string
		Seeded(5).Start(func(ctx *Context) {
			c := ctx.Child("consensus").WithAttribute("epoch", "e5")
			c.Counter("votes", "Votes cast").Inc()
			ctx.Child("consensus").WithAttribute("epoch", "e6").Counter("votes", "Votes cast").Add(2)
			ctx.Child("engine").WithAttribute("region", "us").WithAttribute("instance", "i1").Counter("requests", "Requests").Inc()
			out = ctx.Encode()
		})
		return out
	}
	a, b := run(), run()
	if a != b {
		t.Fatalf("encodings differ:\n%s\n%s", a, b)
	}
	for _, want := range []string{
		`consensus_votes_total{epoch="e5"} 1`,
		`consensus_votes_total{epoch="e6"} 2`,
		`engine_requests_total{instance="i1",region="us"} 1`,
	} {
		if !strings.Contains(a, want) {
			t.Errorf("missing %q in\n%s", want, a)
		}
	}
	if !strings.HasSuffix(a, "# EOF\n") || strings.Count(a, "# EOF") != 1 {
		t.Errorf("encoding must end with a single # EOF:\n%s", a)
	}
}

func TestMetricsReregisterReturnsExisting(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		a := ctx.Counter("test", "help")
		b := ctx.Counter("test", "help")
		a.Inc()
		b.Add(2)
		if !strings.Contains(ctx.Encode(), "test_total 3") {
			t.Errorf("re-registration made a second counter:\n%s", ctx.Encode())
		}
		mustPanic(t, "different type", func() { ctx.Gauge("test", "help") })
		mustPanic(t, "inconsistent help", func() { ctx.WithAttribute("a", "b").Counter("test", "other") })
	})
}

func TestTaskMetrics(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		w := ctx.Child("worker")
		for i := range 128 {
			simrt.Spawn(w.WithAttribute("round", string(rune('a'+i%26))), func(simrt.Context) int { return 0 })
		}
		simrt.Reschedule(ctx)
		simrt.Reschedule(ctx)
		text := ctx.Encode()
		if !strings.Contains(text, `runtime_tasks_spawned_total{execution="Shared",kind="Task",name="worker"} 128`) {
			t.Errorf("task metrics:\n%s", text)
		}
		if strings.Contains(text, "round=") {
			t.Errorf("attributes leaked into task metrics:\n%s", text)
		}
		if !strings.Contains(text, `runtime_tasks_running{execution="Shared",kind="Task",name="worker"} 0`) {
			t.Errorf("running gauge not back to 0:\n%s", text)
		}
	})
}

func TestResolver(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		ip1, ip2 := netip.MustParseAddr("192.168.1.1"), netip.MustParseAddr("192.168.1.2")
		ctx.RegisterHost("example.com", []netip.Addr{ip1, ip2})
		got, err := ctx.Resolve("example.com")
		if err != nil || !slices.Equal(got, []netip.Addr{ip1, ip2}) {
			t.Errorf("resolve: %v, %v", got, err)
		}
		_, err = ctx.Resolve("unknown.com")
		var re *simrt.ResolveError
		if !errors.Is(err, simrt.ErrResolveFailed) || !errors.As(err, &re) || re.Host != "unknown.com" {
			t.Errorf("unknown host: %v", err)
		}
		ctx.RegisterHost("example.com", nil)
		if _, err := ctx.Resolve("example.com"); !errors.Is(err, simrt.ErrResolveFailed) {
			t.Errorf("removed host: %v", err)
		}
	})
}

func TestRecoverDNSMappingsPersist(t *testing.T) {
	addrs := []netip.Addr{netip.MustParseAddr("192.168.1.1"), netip.MustParseAddr("192.168.1.2")}
	var state string
	cp := New(Config{}).StartAndRecover(func(ctx *Context) {
		ctx.RegisterHost("example.com", addrs)
		state = ctx.Auditor().State()
	})
	if cp.Auditor().State() != state {
		t.Fatalf("auditor %s, want %s", cp.Auditor().State(), state)
	}
	FromCheckpoint(cp).Start(func(ctx *Context) {
		got, err := ctx.Resolve("example.com")
		if err != nil || !slices.Equal(got, addrs) {
			t.Errorf("after recovery: %v, %v", got, err)
		}
	})
}

func TestParallelStrategySpawnCompletes(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		s := ctx.Child("pool").Strategy(2)
		h := simrt.Spawn(ctx, func(simrt.Context) []int {
			return simrt.Map(s, []int{0, 1}, func(i int) int { return i + 1 })
		})
		got, err := h.Await(ctx)
		if err != nil || !slices.Equal(got, []int{1, 2}) {
			t.Errorf("got %v, %v", got, err)
		}
	})
}

// Strategies share no worker pool in the simulator, but each must keep its
// own planning parallelism (so simrt.Adaptive picks serial work for one
// worker and parallel work for several) and run its work inline, in order,
// on the calling task: several strategies in one runner, and another in a
// later runner.
func TestStrategiesReusePoolAcrossRunners(t *testing.T) {
	check := func(ctx *Context, label string, p int, wantChoice string) {
		s := ctx.Child(label).Strategy(p)
		if s.Parallelism() != p {
			t.Errorf("%s: parallelism %d, want %d", label, s.Parallelism(), p)
		}
		choice := simrt.Adaptive(s, 2, func() string { return "serial" }, func() string { return "parallel" })
		if choice != wantChoice {
			t.Errorf("%s (parallelism %d): Adaptive over 2 items chose %s, want %s", label, p, choice, wantChoice)
		}
		in := make([]int, p)
		for i := range in {
			in[i] = i
		}
		start := ctx.Now()
		var calls []int
		got := simrt.Map(s, in, func(i int) int { calls = append(calls, i); return i + 1 })
		for i, v := range got {
			if v != i+1 || calls[i] != i {
				t.Errorf("%s: Map = %v, called in order %v; want 1..%d, called 0..%d in order", label, got, calls, p, p-1)
				break
			}
		}
		if !ctx.Now().Equal(start) {
			t.Errorf("%s: Map took %v of simulated time; inline work does not park", label, ctx.Now().Sub(start))
		}
	}
	New(Config{}).Start(func(ctx *Context) {
		check(ctx, "pool_a", 1, "serial")
		check(ctx, "pool_b", 3, "parallel")
	})
	New(Config{}).Start(func(ctx *Context) {
		check(ctx, "pool_c", 4, "parallel")
	})
}

func TestPoolSurvivesSuspension(t *testing.T) {
	New(Config{}).Start(func(ctx *Context) {
		s := ctx.Child("pool").Strategy(2)
		ctx.Sleep(10 * time.Millisecond)
		if got := simrt.Map(s, []int{0, 1}, func(i int) int { return i + 1 }); !slices.Equal(got, []int{1, 2}) {
			t.Errorf("map %v", got)
		}
		ctx.Sleep(10 * time.Millisecond)
		in := make([]uint64, 100)
		for i := range in {
			in[i] = uint64(i)
		}
		sum := simrt.Fold(s, in, func() uint64 { return 0 }, func(a, v uint64) uint64 { return a + v }, func(a, b uint64) uint64 { return a + b })
		if sum != 4950 {
			t.Errorf("fold = %d", sum)
		}
	})
}

// The root closure may capture anything from the caller's stack, and the
// same closure runs again on a recovered runtime.
func TestBorrowedNonSendRoot(t *testing.T) {
	value := "borrowed output"
	calls := 0
	var out string
	run := func(ctx *Context) {
		ctx.Sleep(time.Millisecond)
		calls++
		out = value
	}
	cp := New(Config{}).StartAndRecover(run)
	if out != value || calls != 1 {
		t.Fatalf("first run: %q, %d", out, calls)
	}
	FromCheckpoint(cp).Start(run)
	if calls != 2 {
		t.Fatalf("second run: %d calls", calls)
	}
}

func TestRandIsAuditedAndSeeded(t *testing.T) {
	draw := func(seed uint64) (uint64, []byte, string) {
		var v uint64
		buf := make([]byte, 13)
		var state string
		Seeded(seed).Start(func(ctx *Context) {
			v = ctx.Rand().Uint64()
			ctx.Read(buf)
			state = ctx.Auditor().State()
		})
		return v, buf, state
	}
	v1, b1, s1 := draw(1)
	v2, b2, s2 := draw(1)
	v3, _, _ := draw(2)
	if v1 != v2 || string(b1) != string(b2) || s1 != s2 {
		t.Fatal("same seed drew different numbers")
	}
	if v1 == v3 { // the audit records that a draw happened, not its value, so s3 may equal s1
		t.Fatal("different seeds drew the same")
	}
	if s1 == "00000000" {
		t.Fatal("draws were not audited")
	}
}
