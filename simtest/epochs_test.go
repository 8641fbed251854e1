package simtest_test

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/simtest"
)

// counterEpoch is a tiny recovering service: it reads its durable counter,
// which must equal the number of epochs before this one (a synced write
// survives every power loss), then bumps it with a synced write and leaves
// an unsynced one behind, and runs a random while before the power goes.
func counterEpoch(t *testing.T, ctx *deterministic.Context, epoch int, ends *[]time.Time) {
	if n := len(*ends); n > 0 && ctx.Now().Before((*ends)[n-1]) {
		t.Errorf("epoch %d starts at %v, before the end of the last (%v)", epoch, ctx.Now(), (*ends)[n-1])
	}
	b, size, err := ctx.Open("svc", []byte("counter"))
	if err != nil {
		t.Fatal(err)
	}
	var got uint64
	if size >= 8 {
		buf := make([]byte, 8)
		if err := b.ReadAt(buf, 0); err != nil {
			t.Fatal(err)
		}
		got = binary.BigEndian.Uint64(buf)
	}
	if got != uint64(epoch) {
		t.Errorf("epoch %d recovered counter %d", epoch, got)
	}
	if err := b.WriteAt(0, simrt.WriteSync, binary.BigEndian.AppendUint64(nil, got+1)); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAt(8, 0, []byte("unsynced tail")); err != nil {
		t.Fatal(err)
	}
	ctx.Sleep(time.Duration(1+ctx.Rand().IntN(1000)) * time.Millisecond)
	*ends = append(*ends, ctx.Now())
}

func TestRunEpochsRecoversAcrossPowerLoss(t *testing.T) {
	var states [2]string
	var ends [2][]time.Time
	for i := range states {
		simtest.RunEpochs(t, deterministic.Config{Seed: 42}, 4, func(t *testing.T, ctx *deterministic.Context, epoch int) {
			counterEpoch(t, ctx, epoch, &ends[i])
			states[i] = ctx.Auditor().State()
		})
	}
	if len(ends[0]) != 4 {
		t.Fatalf("%d epochs ran, want 4", len(ends[0]))
	}
	if states[0] != states[1] || ends[0][3] != ends[1][3] {
		t.Fatalf("two runs of seed 42 differ: audit %s/%s, end %v/%v", states[0], states[1], ends[0][3], ends[1][3])
	}
}

func TestHelperEpochFailure(t *testing.T) {
	if !helper(t) {
		return
	}
	var ends []time.Time
	simtest.RunEpochs(t, deterministic.Config{Seed: 5}, 3, func(t *testing.T, ctx *deterministic.Context, epoch int) {
		counterEpoch(t, ctx, epoch, &ends)
		if epoch == 2 {
			t.Errorf("planted: recovery in epoch 2 is wrong")
		}
	})
}

func TestRunEpochsReportsTheEpoch(t *testing.T) {
	out := runHelper(t, "TestHelperEpochFailure")
	for _, want := range []string{"simrt: seed 5 failed", "epoch 2 of 3: the test failed (t.Error)", "planted: recovery in epoch 2", "replay: go test -run '^TestHelperEpochFailure$'"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	r := parseReport(t, out, "5")
	again := parseReport(t, runHelper(t, "TestHelperEpochFailure", "-simrt.seed=5"), "5")
	if r.state != again.state || r.time != again.time {
		t.Errorf("replay differs: %+v vs %+v", r, again)
	}
}

func TestExploreEpochs(t *testing.T) {
	seeds := 0
	simtest.ExploreEpochs(t, deterministic.Config{}, 3, func(t *testing.T, ctx *deterministic.Context, epoch int) {
		var ends []time.Time
		counterEpoch(t, ctx, epoch, &ends)
		if epoch == 2 {
			seeds++
		}
	})
	if seeds == 0 {
		t.Fatal("no seed reached its last epoch")
	}
}

func TestHelperExploreEpochsFailure(t *testing.T) {
	if !helper(t) {
		return
	}
	simtest.ExploreEpochs(t, deterministic.Config{}, 2, func(t *testing.T, ctx *deterministic.Context, epoch int) {
		var ends []time.Time
		counterEpoch(t, ctx, epoch, &ends)
		if epoch == 1 && ctx.Seed() == 3 {
			panic("planted: seed 3 does not recover")
		}
	})
}

func TestExploreEpochsReportsTheSeed(t *testing.T) {
	out := runHelper(t, "TestHelperExploreEpochsFailure", "-simrt.seeds=0..9")
	for _, want := range []string{"epoch 1 of 2: panic: planted: seed 3 does not recover", "first failing seed 3; replay: go test -run '^TestHelperExploreEpochsFailure$'", "-simrt.seed=3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunEpochsCarriesNodeDisks: every node's synced writes survive the
// whole-cluster power loss between epochs, and its unsynced ones follow
// the fault model; the nodes are added again, by name, in each epoch.
func TestRunEpochsCarriesNodeDisks(t *testing.T) {
	const nodes = 3
	seen := make([][]uint64, nodes)
	simtest.RunEpochs(t, deterministic.Config{Seed: 3}, 3, func(t *testing.T, ctx *deterministic.Context, epoch int) {
		for i := range nodes {
			host := netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)})
			if _, err := ctx.AddNode(deterministic.NodeConfig{Name: fmt.Sprintf("n%d", i+1), Host: host, Main: func(ctx simrt.Context) {
				b, size, err := ctx.Open("data", []byte("counter"))
				if err != nil {
					t.Error(err)
					return
				}
				var v uint64
				if size >= 8 {
					buf := make([]byte, 8)
					if err := b.ReadAt(buf, 0); err != nil {
						t.Error(err)
					}
					v = binary.BigEndian.Uint64(buf)
				}
				seen[i] = append(seen[i], v)
				_ = b.WriteAt(0, simrt.WriteSync, binary.BigEndian.AppendUint64(nil, v+uint64(i)+1))
				ctx.Stopped().Wait(ctx)
			}}); err != nil {
				t.Fatal(err)
			}
		}
		ctx.Sleep(time.Second)
	})
	for i, s := range seen {
		want := []uint64{0, uint64(i + 1), 2 * uint64(i+1)}
		if fmt.Sprint(s) != fmt.Sprint(want) {
			t.Errorf("node n%d read %v in its three epochs, want %v", i+1, s, want)
		}
	}
}
