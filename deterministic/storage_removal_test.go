package deterministic_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// TestRemovePartitionIsAtomicAcrossCrash: the crash that ends a run strikes
// right after a RemovePartition that fails or succeeds at random (faulty's
// RemoveRate), with the partition's blobs still open and some of their
// writes unsynced but retained. After recovery the partition is either
// whole — every blob with its durable and retained bytes — or entirely
// gone, as RemovePartition reported, never half of it (the disk store's
// tombstone gives production the same guarantee).
func TestRemovePartitionIsAtomicAcrossCrash(t *testing.T) {
	const blobs = 4
	seen := map[bool]bool{}
	for seed := range uint64(16) {
		cfg := deterministic.Config{Seed: seed, StorageFaults: faulty.Config{
			RemoveRate: 0.5,
			Write:      faulty.WriteConfig{RetentionRate: 1},
		}}
		var removeErr error
		cp := startAndRecover(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
			for i := range blobs {
				b, _ := open(t, ctx, "doomed", fmt.Sprint(i))
				must(t, b.WriteAt(0, simrt.WriteSync, []byte("synced")))
				must(t, b.WriteAt(6, 0, []byte("+retained")))
				if i%2 == 0 {
					must(t, b.Close()) // the others stay open through the crash
				}
			}
			removeErr = ctx.RemovePartition("doomed")
		})
		removed := removeErr == nil
		if !removed && !errors.Is(removeErr, faulty.ErrInjected) {
			t.Fatalf("seed %d: RemovePartition: %v", seed, removeErr)
		}
		seen[removed] = true
		start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
			_, err := ctx.Scan("doomed")
			check(t, errors.Is(err, simrt.ErrPartitionMissing) == removed, "the partition exists unless its removal succeeded", seed, err)
			for i := range blobs {
				data, ok := ctx.LogicalBlob("doomed", []byte(fmt.Sprint(i)))
				if removed {
					check(t, !ok, "no blob of a removed partition survives, nor is revived by its journal", seed, i, string(data))
				} else {
					check(t, ok && string(data) == "synced+retained", "a partition whose removal failed keeps every blob", seed, i, string(data))
				}
			}
		})
	}
	if !seen[true] || !seen[false] {
		t.Fatalf("16 seeds at RemoveRate 0.5 gave only outcome %v", seen)
	}
}
