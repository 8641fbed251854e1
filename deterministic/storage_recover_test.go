package deterministic_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

// Crash, recovery and fault injection of the simulated storage.

func TestRecoverSyncedStoragePersists(t *testing.T) {
	var state string
	cp := startAndRecover(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "test_partition", "test_blob")
		must(t, b.WriteAt(0, 0, []byte("Hello, world!")))
		must(t, b.Sync())
		state = ctx.Auditor().State()
	})
	if cp.Auditor().State() != state {
		t.Fatalf("checkpoint auditor %s, want %s", cp.Auditor().State(), state)
	}
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		b, n := open(t, ctx, "test_partition", "test_blob")
		check(t, n == 13 && readAll(t, b, 13) == "Hello, world!", "synced data survives the crash")
	})
}

func TestRecoverUnsyncedStorageDoesNotPersist(t *testing.T) {
	cp := startAndRecover(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "test_partition", "test_blob")
		must(t, b.WriteAt(0, 0, []byte("Hello, world!")))
	})
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		_, n := open(t, ctx, "test_partition", "test_blob")
		check(t, n == 0, "unsynced data is lost at the crash", n)
	})
}

func TestRecoverSnapshotsFaultConfiguration(t *testing.T) {
	var stale *faulty.Config
	cp := startAndRecover(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		stale = ctx.StorageFaultConfig()
		*stale = faulty.Config{OpenRate: 1}
	})
	*stale = faulty.Config{}
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		_, _, err := ctx.Open("fault_config", []byte("blob"))
		check(t, errors.Is(err, faulty.ErrInjected), "the checkpoint keeps the configuration as it was at the crash", err)
	})
}

// script is a rand.Source that replays fixed values, then zeros.
type script struct {
	vals []uint64
}

func (s *script) Uint64() uint64 {
	if len(s.vals) == 0 {
		return 0
	}
	v := s.vals[0]
	s.vals = s.vals[1:]
	return v
}

func TestRecoverRetainedSuccessfulResize(t *testing.T) {
	// First draw: the resize does not fail; second: it is retained. The
	// script feeds the fault model only: no scheduling points (every
	// storage call is one) draw from it.
	cfg := deterministic.Config{
		Source:        &script{vals: []uint64{math.MaxUint64, 0}},
		StorageFaults: faulty.Config{Resize: faulty.ResizeConfig{FailureRate: 0.5}},
		Scheduling:    deterministic.Scheduling{YieldProbability: deterministic.NoYield},
	}
	cp := startAndRecover(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "crash_resize", "blob")
		must(t, b.WriteAt(0, simrt.WriteSync, []byte("abcdefgh")))
		must(t, b.Resize(3))
	})
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		b, n := open(t, ctx, "crash_resize", "blob")
		check(t, n == 3 && readAll(t, b, 3) == "abc", "the retained resize survives the crash", n)
	})
}

func TestRecoverRandomCrashWritesIsSeededAndEpochScoped(t *testing.T) {
	const stable, pending = 32, 256
	run := func(seed uint64) ([]byte, memory.Digest) {
		cfg := deterministic.Config{
			Seed:          seed,
			StorageFaults: faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}},
		}
		cp := startAndRecover(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
			b, _ := open(t, ctx, "crash_epoch", "blob")
			must(t, b.WriteAt(0, 0, bytes.Repeat([]byte{0xA5}, stable)))
			must(t, b.Sync())
			must(t, b.WriteAt(stable, 0, bytes.Repeat([]byte{0x5A}, pending)))
		})
		var out []byte
		var digest memory.Digest
		start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
			b, n := open(t, ctx, "crash_epoch", "blob")
			out = make([]byte, stable+pending)
			must(t, b.ReadAt(out[:n], 0))
			digest = ctx.StorageAudit()
		})
		return out, digest
	}
	first, d1 := run(12345)
	second, d2 := run(12345)
	different, _ := run(54321)
	if !bytes.Equal(first, second) || d1 != d2 {
		t.Fatal("same seed, different crash")
	}
	if bytes.Equal(first, different) {
		t.Fatal("different seeds, same crash")
	}
	if !bytes.Equal(first[:stable], bytes.Repeat([]byte{0xA5}, stable)) {
		t.Fatal("the synced epoch was not kept whole")
	}
	if !bytes.Contains(first[stable:], []byte{0}) || !bytes.Contains(first[stable:], []byte{0x5A}) {
		t.Fatal("the unsynced epoch should be partly kept")
	}
}

func TestStorageFaultInjectionAndRecovery(t *testing.T) {
	var syncErr error
	cp := startAndRecover(t, deterministic.New(deterministic.Config{StorageFaults: faulty.Config{SyncRate: 1}}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "test_fault", "blob")
		must(t, b.WriteAt(0, 0, []byte("data")))
		syncErr = b.Sync()
	})
	if syncErr == nil {
		t.Fatal("sync succeeded with SyncRate 1")
	}
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		*ctx.StorageFaultConfig() = faulty.Config{}
		b, n := open(t, ctx, "test_fault", "blob")
		check(t, n == 0, "unsynced data is lost after recovery", n)
		must(t, b.WriteAt(0, 0, []byte("recovered")))
		must(t, b.Sync())
		check(t, readAll(t, b, 9) == "recovered", "writes work with faults off")
	})
}

// TestStorageFaultDynamicConfig: a change of the fault configuration takes
// effect at the next operation. Unlike the reference (whose sync succeeds
// again on the same handle once faults are off), a failed sync poisons the
// handle, on disk and here: the retry fails with the same error, and the
// bytes it covered never become durable; a reopened handle syncs again.
func TestStorageFaultDynamicConfig(t *testing.T) {
	cp := startAndRecover(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "test_dynamic", "blob")
		must(t, b.WriteAt(0, 0, []byte("initial")))
		must(t, b.Sync())
		ctx.StorageFaultConfig().SyncRate = 1
		must(t, b.WriteAt(0, 0, []byte("updated")))
		first := b.Sync()
		check(t, first != nil, "sync fails with faults enabled")
		ctx.StorageFaultConfig().SyncRate = 0
		check(t, errors.Is(b.Sync(), first), "a retried sync fails with the first failure's error")
		check(t, errors.Is(b.WriteAt(0, simrt.WriteSync, []byte("x")), first), "so does a WriteSync write")
		data, _ := ctx.LogicalBlob("test_dynamic", []byte("blob"))
		check(t, string(data) == "initial", "the failed sync's bytes are not durable", string(data))
		must(t, b.Close())
		b, _ = open(t, ctx, "test_dynamic", "blob")
		check(t, readAll(t, b, 7) == "initial", "the reopened handle sees what is durable")
		must(t, b.WriteAt(0, 0, []byte("reopen!")))
		must(t, b.Sync())
	})
	start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
		data, _ := ctx.LogicalBlob("test_dynamic", []byte("blob"))
		check(t, string(data) == "reopen!", "a reopened handle syncs with faults disabled", string(data))
	})
}

func TestStorageFaultDeterminism(t *testing.T) {
	run := func(seed uint64) string {
		var out []byte
		start(t, deterministic.New(deterministic.Config{Seed: seed, StorageFaults: faulty.Config{OpenRate: 0.5}}), func(ctx *deterministic.Context) {
			for i := range 20 {
				_, _, err := ctx.Open("test_determinism", []byte{'b', byte(i)})
				out = append(out, map[bool]byte{true: '1', false: '0'}[err == nil])
			}
		})
		return string(out)
	}
	if run(12345) != run(12345) {
		t.Fatal("same seed, different failures")
	}
	if run(12345) == run(99999) {
		t.Fatal("different seeds, same failures")
	}
}

func TestStorageFaultDeterminismMultiTask(t *testing.T) {
	run := func(seed uint64) []int {
		cfg := deterministic.Config{Seed: seed, StorageFaults: faulty.Config{
			OpenRate: 0.5,
			Write:    faulty.WriteConfig{FailureRate: 0.3},
			SyncRate: 0.2,
		}}
		var results []int
		start(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
			var handles []*simrt.Handle[int]
			for i := range 5 {
				handles = append(handles, simrt.Spawn(ctx.Child("task"), func(ctx simrt.Context) int {
					successes := 0
					for j := range 4 {
						b, _, err := ctx.Open("partition", []byte{byte(i), byte(j)})
						if err != nil {
							continue
						}
						successes++
						if b.WriteAt(0, 0, []byte("data")) == nil {
							successes++
						}
						if b.Sync() == nil {
							successes++
						}
						simrt.Reschedule(ctx)
					}
					return successes
				}))
			}
			for _, h := range handles {
				v, err := h.Await(ctx)
				must(t, err)
				results = append(results, v)
			}
		})
		return results
	}
	a, b, c := run(42), run(42), run(99999)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different results: %v %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("different seeds, same results: %v", a)
	}
}

func TestOpenBlobsMetricReturnsToZero(t *testing.T) {
	start(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "partition", "blob")
		must(t, b.WriteAt(0, 0, []byte("hello")))
		check(t, strings.Contains(ctx.Encode(), "runtime_open_blobs 1"), "one blob open", ctx.Encode())
		must(t, b.Close())
		text := ctx.Encode()
		check(t, strings.Contains(text, "runtime_open_blobs 0"), "no blob open after Close", text)
		check(t, strings.Contains(text, "runtime_storage_writes_total 1"), "the write is counted", text)
	})
}

func TestStorageAuditFollowsDurableState(t *testing.T) {
	start(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		b, _ := open(t, ctx, "partition", "blob")
		before := ctx.StorageAudit()
		must(t, b.WriteAt(0, 0, []byte("hello")))
		check(t, ctx.StorageAudit() == before, "an unsynced write leaves the storage audit")
		must(t, b.Sync())
		check(t, ctx.StorageAudit() != before, "a sync changes the storage audit")
		data, ok := ctx.LogicalBlob("partition", []byte("blob"))
		check(t, ok && string(data) == "hello", "LogicalBlob reads durable contents", string(data))
	})
}

func TestStorageRecoveryIsDeterministic(t *testing.T) {
	run := func() (string, string) {
		cfg := deterministic.Config{Seed: 7, StorageFaults: faulty.Config{Write: faulty.WriteConfig{FailureRate: 0.2, RetentionRate: 0.5}, SyncRate: 0.2}}
		cp := startAndRecover(t, deterministic.New(cfg), func(ctx *deterministic.Context) {
			b, _ := open(t, ctx, "p", "b")
			for i := range 50 {
				_ = b.WriteAt(uint64(i*3), 0, []byte("abc"))
				if i%7 == 0 {
					_ = b.Sync()
				}
			}
		})
		var digest string
		start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) { digest = ctx.StorageAudit().String() })
		return cp.Auditor().State(), digest
	}
	a1, d1 := run()
	a2, d2 := run()
	if a1 != a2 || d1 != d2 {
		t.Fatalf("two runs of one seed: audit %s/%s, storage %s/%s", a1, a2, d1, d2)
	}
}
