package deterministic_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// must fails the test on err. Storage calls in these tests run inside the
// root task, where t.Fatal would end the goroutine driving the runtime, so
// failures panic instead and Start re-raises them.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

func open(ctx simrt.Storage, partition, name string) (simrt.Blob, uint64) {
	b, n, err := ctx.Open(partition, []byte(name))
	must(err)
	return b, n
}

func readAll(b simrt.Blob, n int) string {
	p := make([]byte, n)
	must(b.ReadAt(p, 0))
	return string(p)
}

func check(cond bool, msg string, args ...any) {
	if !cond {
		panic(errors.New(strings.TrimSpace(msg + ": " + fmt.Sprintln(args...))))
	}
}

func retainAll() deterministic.StorageFaults {
	return faulty.Config{Write: faulty.WriteConfig{RetentionRate: 1, Mode: faulty.Prefix}}
}

func TestLogicalOpenNamespaceHandoff(t *testing.T) {
	for _, tc := range []struct {
		name             string
		openFirst, named bool
	}{
		{"open named", true, true},
		{"open partition", true, false},
		{"remove named", false, true},
		{"remove partition", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
				seed, _ := open(ctx, "partition", "blob")
				must(seed.WriteAt(0, simrt.WriteSync, []byte("saved")))
				must(seed.Close())
				remove := func() {
					if tc.named {
						must(ctx.Remove("partition", []byte("blob")))
					} else {
						must(ctx.RemovePartition("partition"))
					}
				}
				// Opening before removal keeps the old contents; opening
				// after removal gives a fresh blob.
				var old, current simrt.Blob
				if tc.openFirst {
					var n uint64
					old, n = open(ctx, "partition", "blob")
					check(n == 5 && readAll(old, 5) == "saved", "the open before removal sees the old blob")
					remove()
					current, n = open(ctx, "partition", "blob")
					check(n == 0, "the open after removal is empty")
				} else {
					remove()
					var n uint64
					current, n = open(ctx, "partition", "blob")
					check(n == 0, "the open after removal is empty")
				}
				// An old handle's Close cannot release the replacement's open.
				if old != nil {
					must(old.Close())
				}
				_, _, err := ctx.Open("partition", []byte("blob"))
				var be *simrt.BlobError
				check(errors.As(err, &be) && errors.Is(err, simrt.ErrBlobAlreadyOpen) &&
					be.Partition == "partition" && be.Name == "626c6f62", "the replacement is still open", err)
				must(current.WriteAt(0, simrt.WriteSync, []byte("new")))
				must(current.Close())
				reopened, n := open(ctx, "partition", "blob")
				check(n == 3 && readAll(reopened, 3) == "new", "closing the replacement permits reopening it")
			})
		})
	}
}

func TestLogicalOpenReleasesRetainedMutations(t *testing.T) {
	for _, synced := range []bool{false, true} {
		name := map[bool]string{false: "retained", true: "synced"}[synced]
		t.Run(name, func(t *testing.T) {
			cp := deterministic.New(deterministic.Config{StorageFaults: retainAll()}).StartAndRecover(func(ctx *deterministic.Context) {
				// The WriteSync write persists only the middle byte of the
				// overwrite; reopening must discard the unsynced fragments
				// around it.
				b, _ := open(ctx, "partition", "blob")
				must(b.WriteAt(0, simrt.WriteSync, []byte("saved")))
				must(b.WriteAt(0, 0, []byte("stale")))
				must(b.WriteAt(2, simrt.WriteSync, []byte("X")))
				must(b.Close())

				reopened, n := open(ctx, "partition", "blob")
				check(n == 5 && readAll(reopened, 5) == "saXed", "the reopened blob is its durable contents")

				// Refused duplicate opens are audited.
				before := ctx.Auditor().State()
				_, _, err := ctx.Open("partition", []byte("blob"))
				check(errors.Is(err, simrt.ErrBlobAlreadyOpen), "a second open is refused", err)
				check(before != ctx.Auditor().State(), "a refused open changes the audit")

				if synced {
					must(reopened.WriteAt(0, 0, []byte("fresh")))
					must(reopened.Sync())
				}
			})
			want := map[bool]string{false: "saXed", true: "fresh"}[synced]
			deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
				b, n := open(ctx, "partition", "blob")
				check(n == 5 && readAll(b, 5) == want, "crash replay must not restore fragments the reopen excluded", readAll(b, 5))
			})
		})
	}
}

// TestRetiredWriteOwnerReleasesOtherBlob: in Go the journal owns copies of
// the bytes written, so retiring a write never depends on, or holds, any
// other blob's open; and the caller may reuse its buffer at once.
func TestRetiredWriteOwnerReleasesOtherBlob(t *testing.T) {
	for _, op := range []string{"remove", "remove_partition", "admit"} {
		t.Run(op, func(t *testing.T) {
			cp := deterministic.New(deterministic.Config{StorageFaults: retainAll()}).StartAndRecover(func(ctx *deterministic.Context) {
				a, _ := open(ctx, "partition", "a")
				b, _ := open(ctx, "partition", "b")
				buf := []byte("saved")
				must(a.WriteAt(0, 0, buf))
				copy(buf, "XXXXX") // the journal keeps its own copy
				if op == "remove_partition" {
					must(b.WriteAt(0, 0, []byte("second")))
				}
				must(b.Close())
				switch op {
				case "remove":
					must(ctx.Remove("partition", []byte("a")))
				case "remove_partition":
					must(ctx.RemovePartition("partition"))
				case "admit":
					must(a.Close())
					a2, n := open(ctx, "partition", "a")
					check(n == 0, "the retained write is not durable before a crash")
					must(a2.Close())
				}
				b2, _ := open(ctx, "partition", "b")
				must(b2.Close())
			})
			deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
				if op == "remove_partition" {
					b, _ := ctx.LogicalBlob("partition", []byte("b"))
					check(len(b) == 0, "the removed partition's journal is retired", string(b))
				}
				data, ok := ctx.LogicalBlob("partition", []byte("a"))
				if op != "admit" {
					check(!ok, "a removed blob's journal is retired")
				} else {
					check(ok && len(data) == 0, "a reopened blob's earlier journal is retired", string(data))
				}
			})
		})
	}
}

// TestSyncRetirementProgressesWithNamespaceOpen: retiring a write by sync,
// StartSync or an overlapping WriteSync write happens while other blobs are
// open, and leaves every other blob free to be opened.
func TestSyncRetirementProgressesWithNamespaceOpen(t *testing.T) {
	for _, op := range []string{"sync", "start_sync", "overwrite"} {
		t.Run(op, func(t *testing.T) {
			cp := deterministic.New(deterministic.Config{StorageFaults: retainAll()}).StartAndRecover(func(ctx *deterministic.Context) {
				a, _ := open(ctx, "partition", "a")
				b, _ := open(ctx, "partition", "b")
				must(a.WriteAt(0, 0, []byte("saved")))
				must(b.Close())
				c, _ := open(ctx, "partition", "c")
				switch op {
				case "sync":
					must(a.Sync())
				case "start_sync":
					_, err := a.StartSync().Await(ctx)
					must(err)
				case "overwrite":
					must(a.WriteAt(0, simrt.WriteSync, []byte("fresh")))
				}
				must(c.Close())
				b2, _ := open(ctx, "partition", "b")
				must(b2.Close())
			})
			want := map[string]string{"sync": "saved", "start_sync": "saved", "overwrite": "fresh"}[op]
			deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
				data, _ := ctx.LogicalBlob("partition", []byte("a"))
				check(string(data) == want, "the retired write is durable", string(data))
			})
		})
	}
}

func TestRemovedBlobReopensWhileHandleAlive(t *testing.T) {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		old, _ := open(ctx, "partition", "blob")
		must(old.WriteAt(0, 0, []byte("old")))
		must(ctx.RemovePartition("partition"))
		current, n := open(ctx, "partition", "blob")
		check(n == 0, "the reopened blob is empty")
		// Closing the removed handle must not affect its replacement.
		must(old.Close())
		must(current.WriteAt(0, 0, []byte("new")))
		must(current.Sync())
		check(readAll(current, 3) == "new", "the replacement reads its own write")
	})
}

func TestRecoverSyncedStoragePersists(t *testing.T) {
	var state string
	cp := deterministic.New(deterministic.Config{}).StartAndRecover(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "test_partition", "test_blob")
		must(b.WriteAt(0, 0, []byte("Hello, world!")))
		must(b.Sync())
		state = ctx.Auditor().State()
	})
	if cp.Auditor().State() != state {
		t.Fatalf("checkpoint auditor %s, want %s", cp.Auditor().State(), state)
	}
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		b, n := open(ctx, "test_partition", "test_blob")
		check(n == 13 && readAll(b, 13) == "Hello, world!", "synced data survives the crash")
	})
}

func TestRecoverUnsyncedStorageDoesNotPersist(t *testing.T) {
	cp := deterministic.New(deterministic.Config{}).StartAndRecover(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "test_partition", "test_blob")
		must(b.WriteAt(0, 0, []byte("Hello, world!")))
	})
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		_, n := open(ctx, "test_partition", "test_blob")
		check(n == 0, "unsynced data is lost at the crash", n)
	})
}

func TestRecoverSnapshotsFaultConfiguration(t *testing.T) {
	var stale *deterministic.StorageFaults
	cp := deterministic.New(deterministic.Config{}).StartAndRecover(func(ctx *deterministic.Context) {
		stale = ctx.StorageFaultConfig()
		*stale = faulty.Config{OpenRate: 1}
	})
	*stale = faulty.Config{}
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		_, _, err := ctx.Open("fault_config", []byte("blob"))
		check(errors.Is(err, faulty.ErrInjected), "the checkpoint keeps the configuration as it was at the crash", err)
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
	// First draw: the resize does not fail; second: it is retained.
	cfg := deterministic.Config{
		Source:        &script{vals: []uint64{math.MaxUint64, 0}},
		StorageFaults: faulty.Config{Resize: faulty.ResizeConfig{FailureRate: 0.5}},
	}
	cp := deterministic.New(cfg).StartAndRecover(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "crash_resize", "blob")
		must(b.WriteAt(0, simrt.WriteSync, []byte("abcdefgh")))
		must(b.Resize(3))
	})
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		b, n := open(ctx, "crash_resize", "blob")
		check(n == 3 && readAll(b, 3) == "abc", "the retained resize survives the crash", n)
	})
}

func TestRecoverRandomCrashWritesIsSeededAndEpochScoped(t *testing.T) {
	const stable, pending = 32, 256
	run := func(seed uint64) ([]byte, deterministic.StorageDigest) {
		cfg := deterministic.Config{
			Seed:          seed,
			StorageFaults: faulty.Config{Write: faulty.WriteConfig{RetentionRate: 0.5, Mode: faulty.Subset}},
		}
		cp := deterministic.New(cfg).StartAndRecover(func(ctx *deterministic.Context) {
			b, _ := open(ctx, "crash_epoch", "blob")
			must(b.WriteAt(0, 0, bytes.Repeat([]byte{0xA5}, stable)))
			must(b.Sync())
			must(b.WriteAt(stable, 0, bytes.Repeat([]byte{0x5A}, pending)))
		})
		var out []byte
		var digest deterministic.StorageDigest
		deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
			b, n := open(ctx, "crash_epoch", "blob")
			out = make([]byte, stable+pending)
			must(b.ReadAt(out[:n], 0))
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
	cp := deterministic.New(deterministic.Config{StorageFaults: faulty.Config{SyncRate: 1}}).StartAndRecover(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "test_fault", "blob")
		must(b.WriteAt(0, 0, []byte("data")))
		syncErr = b.Sync()
	})
	if syncErr == nil {
		t.Fatal("sync succeeded with SyncRate 1")
	}
	deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) {
		*ctx.StorageFaultConfig() = faulty.Config{}
		b, n := open(ctx, "test_fault", "blob")
		check(n == 0, "unsynced data is lost after recovery", n)
		must(b.WriteAt(0, 0, []byte("recovered")))
		must(b.Sync())
		check(readAll(b, 9) == "recovered", "writes work with faults off")
	})
}

func TestStorageFaultDynamicConfig(t *testing.T) {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "test_dynamic", "blob")
		must(b.WriteAt(0, 0, []byte("initial")))
		must(b.Sync())
		ctx.StorageFaultConfig().SyncRate = 1
		must(b.WriteAt(0, 0, []byte("updated")))
		check(b.Sync() != nil, "sync fails with faults enabled")
		ctx.StorageFaultConfig().SyncRate = 0
		must(b.Sync())
	})
}

func TestStorageFaultDeterminism(t *testing.T) {
	run := func(seed uint64) string {
		var out []byte
		deterministic.New(deterministic.Config{Seed: seed, StorageFaults: faulty.Config{OpenRate: 0.5}}).Start(func(ctx *deterministic.Context) {
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
		deterministic.New(cfg).Start(func(ctx *deterministic.Context) {
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
				must(err)
				results = append(results, v)
			}
		})
		return results
	}
	a, b, c := run(42), run(42), run(99999)
	if !equalInts(a, b) {
		t.Fatalf("same seed, different results: %v %v", a, b)
	}
	if equalInts(a, c) {
		t.Fatalf("different seeds, same results: %v", a)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOpenBlobsMetricReturnsToZero(t *testing.T) {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "partition", "blob")
		must(b.WriteAt(0, 0, []byte("hello")))
		check(strings.Contains(ctx.Encode(), "runtime_open_blobs 1"), "one blob open", ctx.Encode())
		must(b.Close())
		text := ctx.Encode()
		check(strings.Contains(text, "runtime_open_blobs 0"), "no blob open after Close", text)
		check(strings.Contains(text, "runtime_storage_writes_total 1"), "the write is counted", text)
	})
}

func TestStorageAuditFollowsDurableState(t *testing.T) {
	deterministic.New(deterministic.Config{}).Start(func(ctx *deterministic.Context) {
		b, _ := open(ctx, "partition", "blob")
		before := ctx.StorageAudit()
		must(b.WriteAt(0, 0, []byte("hello")))
		check(ctx.StorageAudit() == before, "an unsynced write leaves the storage audit")
		must(b.Sync())
		check(ctx.StorageAudit() != before, "a sync changes the storage audit")
		data, ok := ctx.LogicalBlob("partition", []byte("blob"))
		check(ok && string(data) == "hello", "LogicalBlob reads durable contents", string(data))
	})
}

func TestStorageRecoveryIsDeterministic(t *testing.T) {
	run := func() (string, string) {
		cfg := deterministic.Config{Seed: 7, StorageFaults: faulty.Config{Write: faulty.WriteConfig{FailureRate: 0.2, RetentionRate: 0.5}, SyncRate: 0.2}}
		cp := deterministic.New(cfg).StartAndRecover(func(ctx *deterministic.Context) {
			b, _ := open(ctx, "p", "b")
			for i := range 50 {
				_ = b.WriteAt(uint64(i*3), 0, []byte("abc"))
				if i%7 == 0 {
					_ = b.Sync()
				}
			}
		})
		var digest string
		deterministic.FromCheckpoint(cp).Start(func(ctx *deterministic.Context) { digest = ctx.StorageAudit().String() })
		return cp.Auditor().State(), digest
	}
	a1, d1 := run()
	a2, d2 := run()
	if a1 != a2 || d1 != d2 {
		t.Fatalf("two runs of one seed: audit %s/%s, storage %s/%s", a1, a2, d1, d2)
	}
}
