package deterministic_test

import (
	"errors"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/fault"
	"github.com/simrt/simrt/storage/faulty"
)

// Faults on nodes: hosts declared at AddNode, per-node disk faults, and
// the effects of both.

// TestNodeHostsDeclaredAtAdd: two nodes may be partitioned before their
// mains ran, and the partition cuts their dials.
func TestNodeHostsDeclaredAtAdd(t *testing.T) {
	var dialErr error
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		addNode(t, ctx, deterministic.NodeConfig{Name: "b", Host: hostB, Main: func(ctx simrt.Context) {
			ctx.Bind(netip.AddrPortFrom(hostB, 80))
			ctx.Sleep(time.Hour)
		}})
		addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			_, _, dialErr = ctx.Dial(netip.AddrPortFrom(hostB, 80))
		}})
		must(t, ctx.Network().Partition(hostA, hostB)) // before either main ran
		ctx.Sleep(time.Second)
	})
	if !errors.Is(dialErr, simrt.ErrConnectionFailed) {
		t.Fatalf("dial across the partition: %v", dialErr)
	}
}

// TestNodeDiskFault: a disk fault set on one node's disk (from inside the
// node, or through Node.Storage) fails that node's operations only, Slow
// sleeps its tasks, and the effects name the node.
func TestNodeDiskFault(t *testing.T) {
	var ctx0 *deterministic.Context
	var errA, errB, errRoot error
	var slowTook time.Duration
	// NoYield: the test times one Open, and a yield at the scheduling
	// point before it (every storage call is one) would add a cycle.
	cfg := deterministic.Config{Seed: 1, Scheduling: deterministic.Scheduling{YieldProbability: deterministic.NoYield}}
	start(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
		ctx0 = ctx
		a := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			deterministic.From(ctx).SetDiskFault(faulty.DiskFault{ReadOnly: true})
			_, _, errA = ctx.Open("p", []byte("x"))
			ctx.Sleep(time.Hour)
		}})
		b := addNode(t, ctx, deterministic.NodeConfig{Name: "b", Host: hostB, Main: func(ctx simrt.Context) {
			_, _, errB = ctx.Open("p", []byte("x"))
			ctx.Sleep(time.Second)
			begin := ctx.Now()
			ctx.Open("p", []byte("y"))
			slowTook = ctx.Now().Sub(begin)
		}})
		ctx.Sleep(10 * time.Millisecond)
		check(t, a.Storage().DiskFault() == faulty.DiskFault{ReadOnly: true}, "node a's disk fault", a.Storage().DiskFault())
		check(t, ctx.DiskFault() == faulty.DiskFault{}, "the runtime's disk fault", ctx.DiskFault())
		_, _, errRoot = ctx.Open("p", []byte("x"))
		b.Storage().SetDiskFault(faulty.DiskFault{Slow: 5 * time.Millisecond})
		ctx.Sleep(2 * time.Second)
		var faults []fault.Name
		for _, f := range ctx.Faults() {
			faults = append(faults, f.Kind)
		}
		if !slices.Contains(faults, fault.DiskReadOnly) || !slices.Contains(faults, fault.DiskSlow) {
			t.Errorf("node disk faults counted: %v; errA %v", faults, errA)
		}
	})
	if !errors.Is(errA, faulty.ErrReadOnly) || errB != nil || errRoot != nil {
		t.Errorf("open on node a %v (want EROFS), node b %v, root %v (want nil)", errA, errB, errRoot)
	}
	if slowTook != 5*time.Millisecond {
		t.Errorf("slow open on node b took %v, want 5ms", slowTook)
	}
	var lines []string
	for _, e := range ctx0.FaultEffects() {
		if e.Source != "storage" {
			lines = append(lines, e.Source+": "+e.String())
		}
	}
	want := []string{
		"node a: disk read-only at 1ms: 1 ops failed",
		"node b: disk slow=5ms at 10ms: 1 ops slowed",
		"node a: crash at 2.01s: no effect (the crash that ends the run)",
		"node b: crash at 2.01s: no effect (the crash that ends the run)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("effects\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestNodeKillEffect: a Kill's connection resets are the effect of a
// host_reset.
func TestNodeKillEffect(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		n := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			l, err := ctx.Bind(addrA)
			must(t, err)
			for {
				if _, _, _, err := l.Accept(); err != nil {
					return
				}
			}
		}})
		ctx.Sleep(10 * time.Millisecond)
		for range 2 {
			_, _, err := ctx.WithHost(hostC).Dial(addrA)
			must(t, err)
		}
		must(t, n.Kill())
		var got []string
		for _, e := range ctx.FaultEffects() {
			got = append(got, e.String())
		}
		want := []string{"host_reset 10.0.0.1 at 10ms: 2 conns reset"}
		check(t, slices.Equal(got, want), "effects", got)
	})
}

// A node's disk handle (Node.Storage) has the fault controls only: no Open
// or other storage operation, and no Crash, so no blob can skip the
// node's stack. Its controls reach the disk the node's contexts use.
func TestNodeDiskHandleIsControlsOnly(t *testing.T) {
	start(t, deterministic.Seeded(1), func(ctx *deterministic.Context) {
		var errA error
		opened := simrt.NewOneshot[struct{}]()
		a := addNode(t, ctx, deterministic.NodeConfig{Name: "a", Host: hostA, Main: func(ctx simrt.Context) {
			opened.Recv(ctx)
			_, _, errA = ctx.Open("p", []byte("x"))
		}})
		typ := reflect.TypeOf(a.Storage())
		for _, m := range []string{"Open", "OpenVersioned", "Remove", "RemovePartition", "Scan", "Crash", "SetRecorder", "SetSleep"} {
			if _, ok := typ.MethodByName(m); ok {
				t.Errorf("%v has a %s method: user code can reach the raw disk", typ, m)
			}
		}
		a.Storage().SetDiskFault(faulty.DiskFault{ReadOnly: true})
		opened.Send(struct{}{})
		ctx.Sleep(time.Second)
		if errA == nil {
			t.Errorf("Open on a read-only disk: %v, want an error", errA)
		}
		if a.Storage().Config() == nil || a.Storage().DiskFault() != (faulty.DiskFault{ReadOnly: true}) {
			t.Errorf("controls: config %v, fault %+v", a.Storage().Config(), a.Storage().DiskFault())
		}
	})
}
