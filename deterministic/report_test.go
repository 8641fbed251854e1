package deterministic_test

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
)

// verdictOf runs root and returns the *Verdict Start panics with.
func verdictOf(t *testing.T, cfg deterministic.Config, root func(ctx *deterministic.Context)) *deterministic.Verdict {
	t.Helper()
	var v *deterministic.Verdict
	func() {
		defer func() {
			r := recover()
			err, ok := r.(error)
			if !ok || !errors.As(err, &v) {
				t.Fatalf("Start panicked with %v (%T); want a *deterministic.Verdict", r, r)
			}
		}()
		deterministic.New(cfg).Start(root)
	}()
	return v
}

// parked returns the one line of the verdict's text about task name.
func parkedLine(t *testing.T, text, name string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "task "+name+" (#") {
			return line
		}
	}
	t.Fatalf("no line for task %s in:\n%s", name, text)
	return ""
}

// A stalled run lists every parked task, what it waits on (with the
// channel's creation site, the connection's addresses, the awaited task's
// name) and since when. Spawned tasks first run one cycle (1ms) after the
// root spawns them.
func TestStallListsParkedTasks(t *testing.T) {
	var chanLine int
	// NoYield: the expected times assume tasks switch only where they park.
	v := verdictOf(t, deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}, func(ctx *deterministic.Context) {
		var ch *simrt.Chan[int]
		ch, chanLine = simrt.NewChan[int](1), callerLine() // one line: the creation site
		var mu simrt.Mutex
		mu.Lock(ctx)
		sig := simrt.NewSignal()
		one := simrt.NewOneshot[int]()
		lis, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:8080"))
		if err != nil {
			t.Fatal(err)
		}
		spawn := func(name string, f func(ctx simrt.Context)) *simrt.Handle[int] {
			return simrt.Spawn(ctx.Child(name), func(ctx simrt.Context) int { f(ctx); return 0 })
		}
		spawn("receiver", func(ctx simrt.Context) { ch.Recv(ctx) })
		spawn("locker", func(ctx simrt.Context) { ctx.Sleep(time.Millisecond); mu.Lock(ctx) })
		spawn("signalled", func(ctx simrt.Context) { sig.Wait(ctx) })
		spawn("oneshot", func(ctx simrt.Context) { one.Recv(ctx) })
		spawn("selector", func(ctx simrt.Context) {
			simrt.Select(ctx, ch.OnRecv(nil), sig.OnFire(nil))
		})
		server := spawn("server", func(ctx simrt.Context) {
			_, _, stream, err := lis.Accept()
			if err != nil {
				t.Error(err)
				return
			}
			stream.Recv(1) // the client never sends
		})
		spawn("client", func(ctx simrt.Context) {
			if _, _, err := ctx.Dial(lis.Addr()); err != nil {
				t.Error(err)
				return
			}
			simrt.NewSignal().Wait(ctx) // keep the connection open
		})
		spawn("acceptor", func(ctx simrt.Context) {
			l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9090"))
			if err != nil {
				t.Error(err)
				return
			}
			l.Accept()
		})
		ctx.Sleep(5 * time.Millisecond)
		server.Await(ctx)
	})
	if !errors.Is(v, deterministic.ErrStalled) {
		t.Fatalf("verdict %v; want ErrStalled", v.Err)
	}
	text := v.Error()
	if !strings.HasPrefix(text, "runtime stalled") {
		t.Errorf("verdict text does not start with \"runtime stalled\":\n%s", text)
	}
	site := fmt.Sprintf("chan made at report_test.go:%d (capacity 1)", chanLine)
	for _, c := range []struct{ task, want string }{
		{"<root>", `parked 1ms, since 1970-01-01T00:00:00.005Z: Await task "server"`},
		{`"receiver"`, "parked 5ms, since 1970-01-01T00:00:00.001Z: receive on " + site},
		{`"locker"`, "parked 4ms, since 1970-01-01T00:00:00.002Z: Lock of a simrt.Mutex"},
		{`"signalled"`, "Wait on a simrt.Signal"},
		{`"oneshot"`, "Recv on a simrt.Oneshot"},
		{`"selector"`, "Select on: receive on " + site + "; Wait on a simrt.Signal"},
		{`"server"`, "Recv at 127.0.0.1:8080 on the connection from 127.0.0.1:"},
		{`"acceptor"`, "Accept on 127.0.0.1:9090"},
	} {
		if line := parkedLine(t, text, c.task); !strings.Contains(line, c.want) {
			t.Errorf("task %s:\n%s\nwant it to contain %q", c.task, line, c.want)
		}
	}
	if len(v.Tasks) != 9 {
		t.Errorf("%d tasks listed, want 9 (root and 8 spawned):\n%s", len(v.Tasks), text)
	}
	for _, ts := range v.Tasks {
		if ts.Ready {
			t.Errorf("task %q listed as ready in a stalled run", ts.Name)
		}
	}
}

// callerLine returns the line it is called from, to name a creation site.
func callerLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

// The timeout verdict lists the tasks too: a sleeping task says until when.
func TestTimeoutListsSleepers(t *testing.T) {
	v := verdictOf(t, deterministic.Config{Seed: 1, Timeout: time.Second}, func(ctx *deterministic.Context) {
		simrt.Spawn(ctx.Child("sleeper"), func(ctx simrt.Context) int {
			ctx.Sleep(time.Hour)
			return 0
		})
		ctx.Sleep(2 * time.Hour)
	})
	if !errors.Is(v, deterministic.ErrRunTimeout) {
		t.Fatalf("verdict %v; want ErrRunTimeout", v.Err)
	}
	text := v.Error()
	if !strings.HasPrefix(text, "runtime timeout") {
		t.Errorf("verdict text does not start with \"runtime timeout\":\n%s", text)
	}
	if line := parkedLine(t, text, `"sleeper"`); !strings.Contains(line, "parked 999ms, since 1970-01-01T00:00:00.001Z: sleep until 1970-01-01T01:00:00.001Z") {
		t.Errorf("sleeper: %s", line)
	}
	if line := parkedLine(t, text, "<root>"); !strings.Contains(line, "parked 1s, since 1970-01-01T00:00:00Z: sleep until 1970-01-01T02:00:00Z") {
		t.Errorf("root: %s", line)
	}
	if !regexp.MustCompile(`\(at 1970-01-01T00:00:01Z\); 2 live tasks`).MatchString(text) {
		t.Errorf("verdict head:\n%s", text)
	}
}

// Context.Tasks lists the same on demand, the caller as running, and
// audits nothing.
func TestTasksOnDemand(t *testing.T) {
	deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
		sig := simrt.NewSignal()
		simrt.Spawn(ctx.Child("waiter"), func(ctx simrt.Context) int { return sig.Wait(ctx) })
		simrt.Spawn(ctx.Child("late"), func(ctx simrt.Context) int { return 0 })
		ctx.Sleep(2 * time.Millisecond) // the waiter parks at 1ms; "late" has run and ended
		simrt.Spawn(ctx.Child("fresh"), func(ctx simrt.Context) int { return 0 })
		state := ctx.Auditor().State()
		var lines []string
		for _, ts := range ctx.Tasks() {
			lines = append(lines, ts.String(ctx.Now()))
		}
		if ctx.Auditor().State() != state {
			t.Error("Tasks changed the audit state")
		}
		want := []string{
			"task <root> (#0) running",
			`task "waiter" (#1) parked 1ms, since 1970-01-01T00:00:00.001Z: Wait on a simrt.Signal`,
			`task "fresh" (#3) ready to run`,
		}
		if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
			t.Errorf("Tasks:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
		}
		sig.Fire(1)
	})
}
