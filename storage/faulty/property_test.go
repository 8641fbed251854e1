package faulty_test

import (
	"math/rand/v2"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

// TestCrashPointsKeepSyncedBytes crashes 10,000 random write/sync/resize
// sequences at random points, under random fault configurations, and checks
// after each crash that every byte made durable (by a successful Sync,
// StartSync or WriteSync write) and not touched since is intact, that no
// byte appears that was never written there, and that the blob is no longer
// than anything ever written.
func TestCrashPointsKeepSyncedBytes(t *testing.T) {
	const (
		runs   = 10_000
		maxPos = 96
	)
	for run := range uint64(runs) {
		rng := rand.New(rand.NewPCG(run, 0x5eed))
		cfg := faulty.Config{
			Write: faulty.WriteConfig{
				FailureRate:   []float64{0, 0, 0.3}[rng.IntN(3)],
				RetentionRate: []float64{0, 0.5, 1}[rng.IntN(3)],
				Mode:          faulty.PartialWriteMode(1 + rng.IntN(2)),
			},
			SyncRate: []float64{0, 0.3}[rng.IntN(2)],
			Resize: faulty.ResizeConfig{
				FailureRate: []float64{0, 0.3}[rng.IntN(2)],
				PartialRate: []float64{0, 1}[rng.IntN(2)],
			},
		}
		mem := memory.New()
		fs := faulty.New(mem, rand.New(rand.NewPCG(run, 1)), cfg)
		b, _, err := fs.Open("p", []byte("b"))
		if err != nil {
			t.Fatal(err)
		}

		var (
			stable   = map[int]byte{} // durable, untouched since
			written  [maxPos][256]bool
			extent   int  // no byte past it was ever written
			value    byte // each write writes one fresh value
			ops      []string
			liveSize = func() int { // the handle's size, probed
				lo, hi := 0, extent+1 // size in [lo, hi)
				for hi-lo > 1 {
					mid := (lo + hi) / 2
					if b.ReadAt(make([]byte, 1), uint64(mid-1)) == nil {
						lo = mid
					} else {
						hi = mid
					}
				}
				return lo
			}
			syncAll = func() {
				n := liveSize()
				live := make([]byte, n)
				if err := b.ReadAt(live, 0); err != nil {
					t.Fatalf("run %d: live read: %v", run, err)
				}
				clear(stable)
				for p, v := range live {
					stable[p] = v
				}
			}
		)
		crashAt := rng.IntN(24)
		for range crashAt {
			switch op := rng.IntN(10); {
			case op < 5: // write
				value = value%255 + 1
				off, n := rng.IntN(64), 1+rng.IntN(32)
				opts := simrt.WriteOptions(0)
				if rng.IntN(3) == 0 {
					opts = simrt.WriteSync
				}
				for p := off; p < off+n; p++ {
					delete(stable, p)
					written[p][value] = true
				}
				extent = max(extent, off+n)
				data := make([]byte, n)
				for i := range data {
					data[i] = value
				}
				err := b.WriteAt(uint64(off), opts, data)
				if err == nil && opts == simrt.WriteSync {
					for p := off; p < off+n; p++ {
						stable[p] = value
					}
				}
				ops = append(ops, "write")
			case op < 7:
				if b.Sync() == nil {
					syncAll()
				}
				ops = append(ops, "sync")
			case op < 8:
				if _, err := b.StartSync().Await(nil); err == nil {
					syncAll()
				}
				ops = append(ops, "start_sync")
			case op < 9:
				size := rng.IntN(80)
				cut := min(size, liveSize())
				for p := range stable {
					if p >= cut {
						delete(stable, p)
					}
				}
				extent = max(extent, size)
				_ = b.Resize(uint64(size))
				ops = append(ops, "resize")
			default: // reopen: the new handle sees durable state
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				if b, _, err = fs.Open("p", []byte("b")); err != nil {
					t.Fatal(err)
				}
				ops = append(ops, "reopen")
			}
		}
		if err := fs.Crash(); err != nil {
			t.Fatal(err)
		}
		got, ok := mem.LogicalBlob("p", []byte("b"))
		if !ok {
			t.Fatalf("run %d: blob lost", run)
		}
		if len(got) > extent {
			t.Fatalf("run %d %v: %d bytes after the crash, only %d ever reached", run, ops, len(got), extent)
		}
		for p, v := range stable {
			if p >= len(got) || got[p] != v {
				t.Fatalf("run %d %v (cfg %+v): synced byte %d = %d lost (blob %v)", run, ops, cfg, p, v, got)
			}
		}
		for p, v := range got {
			if v != 0 && !written[p][v] {
				t.Fatalf("run %d %v: byte %d = %d was never written there", run, ops, p, v)
			}
		}
	}
}
