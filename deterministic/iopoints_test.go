package deterministic

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/simrt/simrt"
)

// ioCall is a storage or network call that completes at once, with the
// setup that makes it so.
type ioCall struct {
	name string
	// setup runs in the root task; the call it returns runs in a spawned
	// task, between two trace entries.
	setup func(t *testing.T, ctx *Context) func()
}

// ioPair returns a connected pair over loopback: the dialer's sink and
// the acceptor's stream, and the listener.
func ioPair(t *testing.T, ctx *Context, port uint16) (simrt.Listener, simrt.Sink, simrt.Stream) {
	l, err := ctx.Bind(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port))
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	si, _, err := ctx.Dial(l.Addr())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	_, _, st, err := l.Accept()
	if err != nil {
		t.Fatalf("Accept: %v", err)
	}
	return l, si, st
}

// ioBlob returns an open blob holding 16 bytes.
func ioBlob(t *testing.T, ctx *Context, name string) simrt.Blob {
	b, _, err := ctx.Open("io", []byte(name))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := b.WriteAt(0, simrt.WriteSync, make([]byte, 16)); err != nil {
		t.Fatalf("WriteAt: %v", err)
	}
	return b
}

// ioMust fails the test on an error of a call under test.
func ioMust(t *testing.T, what string, err error) {
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

var ioCalls = []ioCall{
	{"Bind", func(t *testing.T, ctx *Context) func() {
		return func() {
			_, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
			ioMust(t, "Bind", err)
		}
	}},
	{"Dial", func(t *testing.T, ctx *Context) func() {
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
		ioMust(t, "Bind", err)
		return func() { _, _, err := ctx.Dial(l.Addr()); ioMust(t, "Dial", err) }
	}},
	{"Accept", func(t *testing.T, ctx *Context) func() {
		l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:9000"))
		ioMust(t, "Bind", err)
		_, _, err = ctx.Dial(l.Addr())
		ioMust(t, "Dial", err)
		return func() { _, _, _, err := l.Accept(); ioMust(t, "Accept", err) }
	}},
	{"Listener.Close", func(t *testing.T, ctx *Context) func() {
		l, _, _ := ioPair(t, ctx, 9000)
		return func() { ioMust(t, "Close", l.Close()) }
	}},
	{"Send", func(t *testing.T, ctx *Context) func() {
		_, si, _ := ioPair(t, ctx, 9000)
		return func() { ioMust(t, "Send", si.Send([]byte("ping"))) }
	}},
	{"Sink.Close", func(t *testing.T, ctx *Context) func() {
		_, si, _ := ioPair(t, ctx, 9000)
		return func() { ioMust(t, "Close", si.Close()) }
	}},
	{"Recv", func(t *testing.T, ctx *Context) func() {
		_, si, st := ioPair(t, ctx, 9000)
		ioMust(t, "Send", si.Send([]byte("ping")))
		ctx.Sleep(time.Second) // the bytes arrive
		return func() { _, err := st.Recv(4); ioMust(t, "Recv", err) }
	}},
	{"Peek", func(t *testing.T, ctx *Context) func() {
		_, _, st := ioPair(t, ctx, 9000)
		return func() { st.Peek(4) }
	}},
	{"Stream.Close", func(t *testing.T, ctx *Context) func() {
		_, _, st := ioPair(t, ctx, 9000)
		return func() { ioMust(t, "Close", st.Close()) }
	}},
	{"Open", func(t *testing.T, ctx *Context) func() {
		return func() { _, _, err := ctx.Open("io", []byte("new")); ioMust(t, "Open", err) }
	}},
	{"OpenVersioned", func(t *testing.T, ctx *Context) func() {
		return func() {
			_, _, _, err := ctx.OpenVersioned("io", []byte("new"), simrt.VersionRange{Min: 0, Max: 0})
			ioMust(t, "OpenVersioned", err)
		}
	}},
	{"Scan", func(t *testing.T, ctx *Context) func() {
		ioBlob(t, ctx, "b").Close()
		return func() { _, err := ctx.Scan("io"); ioMust(t, "Scan", err) }
	}},
	{"Remove", func(t *testing.T, ctx *Context) func() {
		ioBlob(t, ctx, "b").Close()
		return func() { ioMust(t, "Remove", ctx.Remove("io", []byte("b"))) }
	}},
	{"RemovePartition", func(t *testing.T, ctx *Context) func() {
		ioBlob(t, ctx, "b").Close()
		return func() { ioMust(t, "RemovePartition", ctx.RemovePartition("io")) }
	}},
	{"ReadAt", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { ioMust(t, "ReadAt", b.ReadAt(make([]byte, 4), 0)) }
	}},
	{"WriteAt", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { ioMust(t, "WriteAt", b.WriteAt(0, 0, []byte("abcd"))) }
	}},
	{"Resize", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { ioMust(t, "Resize", b.Resize(4)) }
	}},
	{"Sync", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { ioMust(t, "Sync", b.Sync()) }
	}},
	{"StartSync", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { b.StartSync() }
	}},
	{"Blob.Close", func(t *testing.T, ctx *Context) func() {
		b := ioBlob(t, ctx, "b")
		return func() { ioMust(t, "Close", b.Close()) }
	}},
}

// interleavedAround reports whether task b ran while task a was in call:
// a records "a1", makes the call, records "a2".
func interleavedAround(t *testing.T, c ioCall) func(ctx *Context) bool {
	return func(ctx *Context) bool {
		call := c.setup(t, ctx)
		var trace []string
		a := simrt.Spawn(ctx, func(simrt.Context) struct{} {
			trace = append(trace, "a1")
			call()
			trace = append(trace, "a2")
			return struct{}{}
		})
		b := simrt.Spawn(ctx, func(simrt.Context) struct{} { trace = append(trace, "b"); return struct{}{} })
		a.Await(ctx)
		b.Await(ctx)
		return len(trace) == 3 && trace[1] == "b"
	}
}

// TestIOCallsAreSchedulingPoints: every call of the simulated storage and
// network that completes at once is a scheduling point: another task runs
// in the middle of it on some seeds, and never with NoYield (so the call
// indeed completes at once: it does not park).
func TestIOCallsAreSchedulingPoints(t *testing.T) {
	for _, c := range ioCalls {
		t.Run(c.name, func(t *testing.T) {
			if hits := overSeeds(200, Config{}, interleavedAround(t, c)); hits == 0 {
				t.Errorf("another task never ran during %s in 200 seeds", c.name)
			}
			if hits := overSeeds(200, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, interleavedAround(t, c)); hits != 0 {
				t.Errorf("with NoYield another task ran during %s on %d seeds", c.name, hits)
			}
		})
	}
}

// interleavedWrites reports whether an observer saw the state between two
// immediate calls of one task: writer makes call twice, recording its
// count after each; the observer records what it sees.
func interleavedWrites(twice func(n int)) func(ctx *Context) bool {
	return func(ctx *Context) bool {
		done, seen := 0, -1
		w := simrt.Spawn(ctx, func(simrt.Context) struct{} {
			for i := range 2 {
				twice(i)
				done++
			}
			return struct{}{}
		})
		o := simrt.Spawn(ctx, func(simrt.Context) struct{} { seen = done; return struct{}{} })
		w.Await(ctx)
		o.Await(ctx)
		return seen == 1
	}
}

// TestYieldBetweenTwoSendsOnSomeSeeds: two Sends into a buffer with room
// never park, yet another task observes the writer between them on some
// seeds; never with NoYield.
func TestYieldBetweenTwoSendsOnSomeSeeds(t *testing.T) {
	root := func(ctx *Context) bool {
		_, si, _ := ioPair(t, ctx, 9000)
		return interleavedWrites(func(n int) { ioMust(t, "Send", si.Send([]byte(fmt.Sprint(n)))) })(ctx)
	}
	if hits := overSeeds(300, Config{}, root); hits == 0 {
		t.Fatal("no task ever ran between two immediate Sends in 300 seeds")
	}
	if hits := overSeeds(300, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, root); hits != 0 {
		t.Fatalf("with NoYield a task ran between two immediate Sends on %d seeds", hits)
	}
}

// TestYieldBetweenTwoStorageWritesOnSomeSeeds: the same for two writes to
// a simulated blob.
func TestYieldBetweenTwoStorageWritesOnSomeSeeds(t *testing.T) {
	root := func(ctx *Context) bool {
		b := ioBlob(t, ctx, "b")
		return interleavedWrites(func(n int) { ioMust(t, "WriteAt", b.WriteAt(uint64(n), 0, []byte{1})) })(ctx)
	}
	if hits := overSeeds(300, Config{}, root); hits == 0 {
		t.Fatal("no task ever ran between two storage writes in 300 seeds")
	}
	if hits := overSeeds(300, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, root); hits != 0 {
		t.Fatalf("with NoYield a task ran between two storage writes on %d seeds", hits)
	}
}

// TestIOPointsUnderPCT: under PCT the calls are scheduling points too: a
// priority change point can fall on one (the setup's Open and WriteAt and
// the two spawns are points as well, so k = 8 covers the Sync).
func TestIOPointsUnderPCT(t *testing.T) {
	c := ioCalls[len(ioCalls)-3]
	if c.name != "Sync" {
		t.Fatalf("ioCalls[%d] is %s, want Sync", len(ioCalls)-3, c.name)
	}
	cfg := Config{Scheduling: Scheduling{Scheduler: PCT, PCTDepth: 2, PCTSteps: 8}}
	if hits := overSeeds(200, cfg, interleavedAround(t, c)); hits == 0 {
		t.Errorf("under PCT another task never ran during %s in 200 seeds", c.name)
	}
}

// TestNodeStorageCallsAreSchedulingPoints: a node's disk is built by
// storageStack too, so its calls are scheduling points as well.
func TestNodeStorageCallsAreSchedulingPoints(t *testing.T) {
	root := func(ctx *Context) bool {
		seen := false
		_, err := ctx.AddNode(NodeConfig{
			Name: "n1",
			Host: netip.MustParseAddr("10.0.0.1"),
			Main: func(nctx simrt.Context) {
				seen = interleavedWrites(func(n int) {
					b := ioBlob(t, From(nctx), fmt.Sprint("b", n))
					ioMust(t, "Close", b.Close())
				})(From(nctx))
			},
		})
		if err != nil {
			t.Fatalf("AddNode: %v", err)
		}
		ctx.Sleep(time.Second)
		return seen
	}
	if hits := overSeeds(300, Config{}, root); hits == 0 {
		t.Fatal("no task ever ran between two immediate storage calls on a node in 300 seeds")
	}
	if hits := overSeeds(300, Config{Scheduling: Scheduling{YieldProbability: NoYield}}, root); hits != 0 {
		t.Fatalf("with NoYield a task ran between two storage calls on a node on %d seeds", hits)
	}
}
