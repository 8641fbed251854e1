package deterministic_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// failed is the panic value with which must and check end the root task
// once they have recorded a failure with t.Errorf: Start re-raises it
// after its cleanup, and start and startAndRecover turn it into
// t.FailNow on the test's goroutine. A failing check thus fails its test
// and no other: the test binary goes on to the next test. (t.FailNow inside
// a task would end the goroutine that drives the runtime instead.)
type failed struct{}

// must fails the test on err.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("unexpected error: %v", err)
		panic(failed{})
	}
}

// check fails the test, with msg and args, unless cond holds.
func check(t testing.TB, cond bool, msg string, args ...any) {
	t.Helper()
	if !cond {
		t.Errorf("%s", strings.TrimSpace(msg+": "+fmt.Sprintln(args...)))
		panic(failed{})
	}
}

// start runs root on r, for roots that use must and check.
func start(t testing.TB, r *deterministic.Runner, root func(ctx *deterministic.Context)) {
	t.Helper()
	defer stopOnFailure(t)
	r.Start(root)
}

// startAndRecover is start for StartAndRecover.
func startAndRecover(t testing.TB, r *deterministic.Runner, root func(ctx *deterministic.Context)) *deterministic.Checkpoint {
	t.Helper()
	defer stopOnFailure(t)
	return r.StartAndRecover(root)
}

func stopOnFailure(t testing.TB) {
	if p := recover(); p != nil {
		if _, ok := p.(failed); ok {
			t.FailNow()
		}
		panic(p)
	}
}

func open(t testing.TB, ctx simrt.Storage, partition, name string) (simrt.Blob, uint64) {
	t.Helper()
	b, n, err := ctx.Open(partition, []byte(name))
	must(t, err)
	return b, n
}

func readAll(t testing.TB, b simrt.Blob, n int) string {
	t.Helper()
	p := make([]byte, n)
	must(t, b.ReadAt(p, 0))
	return string(p)
}

func retainAll() faulty.Config {
	return faulty.Config{Write: faulty.WriteConfig{RetentionRate: 1, Mode: faulty.Prefix}}
}

// opened is what an open in a spawned task returns to the root.
type opened struct {
	b simrt.Blob
	n uint64
}

// TestLogicalOpenNamespaceHandoff races an open against a removal (of the
// blob, or of its partition) in two tasks, "namespace" (the worker: the
// open when openFirst, else the removal) and "competing", spawned together
// so that the seeded scheduler picks the order. In Go a storage operation
// never parks, so a competitor can observe the namespace only before or
// after the whole of an operation, never half of it (the reference pauses
// its worker between the namespace change and the open registry's update
// to check the same); the seeds below run each case in both orders, and
// whichever won, the open and the removal must have one of their two
// serial outcomes: an open before the removal keeps the old contents, one
// after it gets a fresh blob. Then, as in the reference, an old handle's
// Close cannot release the replacement's open, and closing the
// replacement permits reopening its durable contents.
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
			orders := map[string]bool{}
			for seed := range uint64(8) {
				var order []string
				start(t, deterministic.New(deterministic.Config{Seed: seed}), func(ctx *deterministic.Context) {
					first, _ := open(t, ctx, "partition", "blob")
					must(t, first.WriteAt(0, simrt.WriteSync, []byte("saved")))
					must(t, first.Close())

					operation := func(ctx simrt.Context, isOpen bool) opened {
						if isOpen {
							order = append(order, "open")
							b, n := open(t, ctx, "partition", "blob")
							return opened{b, n}
						}
						order = append(order, "remove")
						if tc.named {
							must(t, ctx.Remove("partition", []byte("blob")))
						} else {
							must(t, ctx.RemovePartition("partition"))
						}
						return opened{}
					}
					worker := simrt.Spawn(ctx.Child("namespace"), func(ctx simrt.Context) opened {
						return operation(ctx, tc.openFirst)
					})
					competing := simrt.Spawn(ctx.Child("competing"), func(ctx simrt.Context) opened {
						return operation(ctx, !tc.openFirst)
					})
					w, err := worker.Await(ctx)
					must(t, err)
					c, err := competing.Await(ctx)
					must(t, err)
					got := w
					if !tc.openFirst {
						got = c
					}

					// Opening before removal preserves access to the old
					// contents. Opening after removal must return a fresh
					// incarnation.
					var old, current simrt.Blob
					if order[0] == "open" {
						old = got.b
						check(t, got.n == 5 && readAll(t, old, 5) == "saved", "the open that won the race sees the old blob", got.n)
						var n uint64
						current, n = open(t, ctx, "partition", "blob")
						check(t, n == 0, "the open after removal is empty", n)
					} else {
						current = got.b
						check(t, got.n == 0, "the open that lost the race gets a fresh blob", got.n)
					}

					// An old handle's Close cannot release the replacement's open.
					if old != nil {
						must(t, old.Close())
					}
					_, _, err = ctx.Open("partition", []byte("blob"))
					var be *simrt.BlobError
					check(t, errors.As(err, &be) && errors.Is(err, simrt.ErrBlobAlreadyOpen) &&
						be.Partition == "partition" && be.Name == "626c6f62", "the replacement is still open", err)

					// Closing the replacement permits reopening its durable contents.
					must(t, current.WriteAt(0, simrt.WriteSync, []byte("new")))
					must(t, current.Close())
					reopened, n := open(t, ctx, "partition", "blob")
					check(t, n == 3 && readAll(t, reopened, 3) == "new", "closing the replacement permits reopening it")
				})
				orders[strings.Join(order, " then ")] = true
			}
			if !orders["open then remove"] || !orders["remove then open"] {
				t.Fatalf("8 seeds raced the two tasks in the orders %v only, want both", orders)
			}
		})
	}
}

// TestLogicalOpenReleasesRetainedMutations: reopening a blob retires the
// crash journal of its earlier handle (the unsynced fragments around a
// WriteSync write): the reopened handle sees the page cache the close left
// (unsynced, as in production), and the crash keeps only what is durable,
// replaying none of the earlier handle's fragments. A
// control blob's retained write must survive the same crash: the test
// fails if crash replay is off as well as if the reopen retires nothing.
func TestLogicalOpenReleasesRetainedMutations(t *testing.T) {
	for _, synced := range []bool{false, true} {
		name := map[bool]string{false: "retained", true: "synced"}[synced]
		t.Run(name, func(t *testing.T) {
			cp := startAndRecover(t, deterministic.New(deterministic.Config{StorageFaults: retainAll()}), func(ctx *deterministic.Context) {
				control, _ := open(t, ctx, "partition", "control")
				must(t, control.WriteAt(0, 0, []byte("kept")))
				must(t, control.Close())

				// The WriteSync write persists only the middle byte of the
				// overwrite; reopening must discard the unsynced fragments
				// around it.
				b, _ := open(t, ctx, "partition", "blob")
				must(t, b.WriteAt(0, simrt.WriteSync, []byte("saved")))
				must(t, b.WriteAt(0, 0, []byte("stale")))
				must(t, b.WriteAt(2, simrt.WriteSync, []byte("X")))
				must(t, b.Close())
				check(t, ctx.StoragePending() == 3, "the control write and the two fragments around X are journaled", ctx.StoragePending())

				reopened, n := open(t, ctx, "partition", "blob")
				check(t, n == 5 && readAll(t, reopened, 5) == "stXle", "the reopened blob is what the closed handle left (the page cache)")
				check(t, ctx.StoragePending() == 1, "the reopen retires the earlier handle's fragments, and only those", ctx.StoragePending())

				// Refused duplicate opens are audited.
				before := ctx.Auditor().State()
				_, _, err := ctx.Open("partition", []byte("blob"))
				check(t, errors.Is(err, simrt.ErrBlobAlreadyOpen), "a second open is refused", err)
				check(t, before != ctx.Auditor().State(), "a refused open changes the audit")

				if synced {
					must(t, reopened.WriteAt(0, 0, []byte("fresh")))
					must(t, reopened.Sync())
				}
			})
			want := map[bool]string{false: "saXed", true: "fresh"}[synced]
			start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
				b, n := open(t, ctx, "partition", "blob")
				check(t, n == 5 && readAll(t, b, 5) == want, "crash replay must not restore fragments the reopen excluded", readAll(t, b, 5))
				data, _ := ctx.LogicalBlob("partition", []byte("control"))
				check(t, string(data) == "kept", "crash replay keeps a retained write nothing retired", string(data))
			})
		})
	}
}

// TestRetiredWriteOwnerReleasesOtherBlob: removing a blob, removing its
// partition, or reopening it retires its journaled writes, and no other
// blob's; the other blob is free to open at once. In Go the journal owns a
// copy of each write's bytes, so retiring one never depends on, or holds,
// another blob's open, and the caller may reuse its buffer at once (the
// control blob's write survives the crash from such a reused buffer).
func TestRetiredWriteOwnerReleasesOtherBlob(t *testing.T) {
	for _, op := range []string{"remove", "remove_partition", "admit"} {
		t.Run(op, func(t *testing.T) {
			cp := startAndRecover(t, deterministic.New(deterministic.Config{StorageFaults: retainAll()}), func(ctx *deterministic.Context) {
				control, _ := open(t, ctx, "control", "c")
				buf := []byte("kept")
				must(t, control.WriteAt(0, 0, buf))
				copy(buf, "XXXX") // the journal keeps its own copy
				a, _ := open(t, ctx, "partition", "a")
				b, _ := open(t, ctx, "partition", "b")
				must(t, a.WriteAt(0, 0, []byte("saved")))
				must(t, b.WriteAt(0, 0, []byte("second")))
				must(t, b.Close())
				check(t, ctx.StoragePending() == 3, "three retained writes", ctx.StoragePending())
				want := 2 // what survives the operation: the control and b
				switch op {
				case "remove":
					must(t, ctx.Remove("partition", []byte("a")))
				case "remove_partition":
					must(t, ctx.RemovePartition("partition"))
					want = 1
				case "admit":
					must(t, a.Close())
					a2, n := open(t, ctx, "partition", "a")
					check(t, n == 5, "the reopen sees the unsynced write in the page cache", n)
					data, _ := ctx.LogicalBlob("partition", []byte("a"))
					check(t, len(data) == 0, "the retained write is not durable before a crash", string(data))
					must(t, a2.Close())
				}
				check(t, ctx.StoragePending() == want, "the operation retires exactly its blobs' writes", ctx.StoragePending(), "want", want)
				if op != "remove_partition" {
					b2, _ := open(t, ctx, "partition", "b")
					check(t, ctx.StoragePending() == 1, "reopening b retires b's write", ctx.StoragePending())
					must(t, b2.Close())
				}
			})
			start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
				data, ok := ctx.LogicalBlob("control", []byte("c"))
				check(t, ok && string(data) == "kept", "the control write survives the crash, from its own copy", string(data))
				b, ok := ctx.LogicalBlob("partition", []byte("b"))
				if op == "remove_partition" {
					check(t, !ok, "the removed partition's blobs stay removed", string(b))
				} else {
					check(t, ok && len(b) == 0, "b's write was retired by its reopen", string(b))
				}
				data, ok = ctx.LogicalBlob("partition", []byte("a"))
				if op != "admit" {
					check(t, !ok, "a removed blob stays removed", string(data))
				} else {
					check(t, ok && len(data) == 0, "a reopened blob's earlier journal is retired", string(data))
				}
			})
		})
	}
}

// TestSyncRetirementProgressesWithNamespaceOpen: a sync, an awaited
// StartSync or an overlapping WriteSync write retires a's journaled write
// while other blobs are open, touches no other blob's journal (the control
// write still survives the crash), and leaves every other blob free to be
// opened.
func TestSyncRetirementProgressesWithNamespaceOpen(t *testing.T) {
	for _, op := range []string{"sync", "start_sync", "overwrite"} {
		t.Run(op, func(t *testing.T) {
			cp := startAndRecover(t, deterministic.New(deterministic.Config{StorageFaults: retainAll()}), func(ctx *deterministic.Context) {
				control, _ := open(t, ctx, "partition", "control")
				must(t, control.WriteAt(0, 0, []byte("kept")))
				a, _ := open(t, ctx, "partition", "a")
				b, _ := open(t, ctx, "partition", "b")
				must(t, a.WriteAt(0, 0, []byte("saved")))
				must(t, b.Close())
				c, _ := open(t, ctx, "partition", "c")
				check(t, ctx.StoragePending() == 2, "two retained writes", ctx.StoragePending())
				switch op {
				case "sync":
					must(t, a.Sync())
				case "start_sync":
					_, err := a.StartSync().Await(ctx)
					must(t, err)
				case "overwrite":
					must(t, a.WriteAt(0, simrt.WriteSync, []byte("fresh")))
				}
				check(t, ctx.StoragePending() == 1, "the durability operation retires a's write and only a's", ctx.StoragePending())
				must(t, c.Close())
				b2, _ := open(t, ctx, "partition", "b")
				must(t, b2.Close())
			})
			want := map[string]string{"sync": "saved", "start_sync": "saved", "overwrite": "fresh"}[op]
			start(t, deterministic.FromCheckpoint(cp), func(ctx *deterministic.Context) {
				data, _ := ctx.LogicalBlob("partition", []byte("a"))
				check(t, string(data) == want, "the retired write is durable", string(data))
				data, _ = ctx.LogicalBlob("partition", []byte("control"))
				check(t, string(data) == "kept", "the control write survives the crash", string(data))
			})
		})
	}
}

func TestRemovedBlobReopensWhileHandleAlive(t *testing.T) {
	start(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		old, _ := open(t, ctx, "partition", "blob")
		must(t, old.WriteAt(0, 0, []byte("old")))
		must(t, ctx.RemovePartition("partition"))
		current, n := open(t, ctx, "partition", "blob")
		check(t, n == 0, "the reopened blob is empty")
		// Closing the removed handle must not affect its replacement.
		must(t, old.Close())
		must(t, current.WriteAt(0, 0, []byte("new")))
		must(t, current.Sync())
		check(t, readAll(t, current, 3) == "new", "the replacement reads its own write")
	})
}
