package storagetest

import (
	"errors"
	"math"
	"strings"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

// Rules on which the simulator's storage and the disk once disagreed: each
// now has one answer, the same on every backend.
var agreeCases = []testCase{
	{"ZeroByteWriteDoesNothing", func(t T, s simrt.Storage) {
		// As os.File.WriteAt: writing nothing never extends the blob, with
		// or without WriteSync, at any offset.
		b, _ := open(t, s, "partition", "empty_write")
		write(t, b, 0, 0, []byte("abc"))
		write(t, b, 8, 0)
		write(t, b, 100, 0, nil, []byte{})
		write(t, b, math.MaxUint64, 0)
		write(t, b, math.MaxUint64, simrt.WriteSync)
		expectReadFails(t, b, 3, 1, "a zero-byte write past the end does not extend the blob")
		sync(t, b)
		closeBlob(t, b)
		b, n := open(t, s, "partition", "empty_write")
		expectSize(t, n, 3, "zero-byte writes past the end, synced and reopened")
		closeBlob(t, b)
	}},
	{"CloseKeepsUnsyncedWrites", func(t T, s simrt.Storage) {
		// Close is not a crash: as on disk, where the operating system's
		// page cache keeps what was written, a blob closed with unsynced
		// writes and resizes and opened again has them all (only a crash
		// or a power loss may drop unsynced data).
		b, _ := open(t, s, "partition", "unsynced")
		write(t, b, 0, simrt.WriteSync, []byte("durable"))
		write(t, b, 7, 0, []byte("+pending"))
		closeBlob(t, b)
		b, n := open(t, s, "partition", "unsynced")
		expectSize(t, n, 15, "an unsynced write, closed and reopened")
		expectRead(t, b, 0, []byte("durable+pending"), "an unsynced write, closed and reopened")
		if err := b.Resize(4); err != nil {
			t.Fatalf("Resize(4): %v", err)
		}
		closeBlob(t, b)
		b, n = open(t, s, "partition", "unsynced")
		expectSize(t, n, 4, "an unsynced truncation, closed and reopened")
		expectRead(t, b, 0, []byte("dura"), "an unsynced truncation, closed and reopened")
		if err := b.Resize(6); err != nil {
			t.Fatalf("Resize(6): %v", err)
		}
		closeBlob(t, b)
		b, n = open(t, s, "partition", "unsynced")
		expectSize(t, n, 6, "an unsynced extension, closed and reopened")
		expectRead(t, b, 0, []byte("dura\x00\x00"), "an unsynced extension, closed and reopened")
		closeBlob(t, b)
	}},
	{"EmptyReadAtAnyOffset", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "empty_read")
		for _, off := range []uint64{0, 1, 1 << 40, math.MaxInt64, 1 << 63, math.MaxUint64} {
			if err := b.ReadAt(nil, off); err != nil {
				t.Fatalf("an empty read at %d: %v; an empty read always succeeds", off, err)
			}
			if err := b.ReadAt([]byte{}, off); err != nil {
				t.Fatalf("an empty read at %d: %v; an empty read always succeeds", off, err)
			}
		}
		closeBlob(t, b)
	}},
	{"NameLimits", func(t T, s simrt.Storage) {
		longest := strings.Repeat("p", storage.MaxPartitionLen)
		b, _ := open(t, s, longest, strings.Repeat("n", storage.MaxBlobNameLen))
		write(t, b, 0, simrt.WriteSync, []byte("fits"))
		closeBlob(t, b)
		if names := scan(t, s, longest); len(names) != 1 || len(names[0]) != storage.MaxBlobNameLen {
			t.Fatalf("Scan of the longest partition = %d names, want the longest blob name", len(names))
		}
		tooLong := longest + "p"
		_, _, err := s.Open(tooLong, []byte("blob"))
		expectIs(t, err, simrt.ErrPartitionNameInvalid, "a partition name over the limit")
		expectIs(t, err, storage.ErrNameTooLong, "a partition name over the limit")
		_, err = s.Scan(tooLong)
		expectIs(t, err, storage.ErrNameTooLong, "Scan of a partition name over the limit")
		expectIs(t, s.Remove(tooLong, []byte("blob")), storage.ErrNameTooLong, "Remove in a partition name over the limit")
		expectIs(t, s.RemovePartition(tooLong), storage.ErrNameTooLong, "RemovePartition of a name over the limit")

		long := []byte(strings.Repeat("n", storage.MaxBlobNameLen+1))
		_, _, err = s.Open("partition", long)
		expectIs(t, err, simrt.ErrBlobOpenFailed, "a blob name over the limit")
		expectIs(t, err, storage.ErrNameTooLong, "a blob name over the limit")
		_, err = s.Scan("partition")
		expectIs(t, err, simrt.ErrPartitionMissing, "a refused open creates nothing")
		err = s.Remove("partition", long)
		expectIs(t, err, simrt.ErrBlobMissing, "removing a blob name over the limit")
		expectIs(t, err, storage.ErrNameTooLong, "removing a blob name over the limit")
	}},
	{"InvertedVersionRange", func(t T, s simrt.Storage) {
		_, _, _, err := s.OpenVersioned("partition", []byte("blob"), simrt.VersionRange{Min: 3, Max: 2})
		expectIs(t, err, simrt.ErrBlobOpenFailed, "an inverted version range")
		expectIs(t, err, storage.ErrVersionRange, "an inverted version range")
		if !strings.Contains(err.Error(), "3..=2") {
			t.Fatalf("error %q does not show the range", err)
		}
		_, err = s.Scan("partition")
		expectIs(t, err, simrt.ErrPartitionMissing, "a refused open creates nothing")
	}},
	{"WriteAfterRemove", func(t T, s simrt.Storage) {
		// Like an *os.File on a removed path, a handle on a removed blob
		// keeps its own contents: it reads, writes and resizes them. But
		// nothing it holds can be found again, so making it durable fails.
		b, _ := open(t, s, "partition", "blob")
		write(t, b, 0, simrt.WriteSync, []byte("abc"))
		if err := s.Remove("partition", []byte("blob")); err != nil {
			t.Fatal(err)
		}
		write(t, b, 3, 0, []byte("def"))
		expectRead(t, b, 0, []byte("abcdef"), "an unsynced write through a removed handle")
		if err := b.Resize(4); err != nil {
			t.Fatalf("Resize of a removed blob: %v", err)
		}
		expectRead(t, b, 0, []byte("abcd"), "a resize through a removed handle")
		expectIs(t, b.Sync(), simrt.ErrBlobMissing, "Sync of a removed blob")
		_, err := await(t, b.StartSync())
		expectIs(t, err, simrt.ErrBlobMissing, "StartSync of a removed blob")
		err = b.WriteAt(0, simrt.WriteSync, []byte("XY"))
		expectIs(t, err, simrt.ErrBlobMissing, "a WriteSync write to a removed blob")
		expectRead(t, b, 0, []byte("abcd"), "a refused WriteSync write writes nothing")
		cur, n := open(t, s, "partition", "blob")
		expectSize(t, n, 0, "the blob recreated after removal")
		closeBlob(t, b)
		closeBlob(t, cur)
		if names := scan(t, s, "partition"); len(names) != 1 {
			t.Fatalf("Scan = %q, want only the recreated blob", names)
		}
	}},
	{"RemovePartitionWhileOpen", func(t T, s simrt.Storage) {
		a, _ := open(t, s, "partition", "a")
		b, _ := open(t, s, "partition", "b")
		write(t, a, 0, simrt.WriteSync, []byte("synced"))
		write(t, b, 0, 0, []byte("unsynced"))
		if err := s.RemovePartition("partition"); err != nil {
			t.Fatalf("RemovePartition with two blobs open: %v", err)
		}
		_, err := s.Scan("partition")
		expectIs(t, err, simrt.ErrPartitionMissing, "Scan after RemovePartition")
		expectRead(t, a, 0, []byte("synced"), "a removed partition's blob, synced")
		expectRead(t, b, 0, []byte("unsynced"), "a removed partition's blob, unsynced")
		write(t, b, 8, 0, []byte("!"))
		expectIs(t, a.Sync(), simrt.ErrBlobMissing, "Sync in a removed partition")
		expectIs(t, b.WriteAt(0, simrt.WriteSync, []byte("x")), simrt.ErrBlobMissing, "WriteSync in a removed partition")
		again, n := open(t, s, "partition", "a")
		expectSize(t, n, 0, "a blob of a recreated partition")
		write(t, again, 0, simrt.WriteSync, []byte("new"))
		closeBlob(t, a)
		closeBlob(t, b)
		closeBlob(t, again)
		if names := scan(t, s, "partition"); len(names) != 1 || string(names[0]) != "a" {
			t.Fatalf("Scan of the recreated partition = %q, want [a]", names)
		}
		again, n = open(t, s, "partition", "a")
		expectSize(t, n, 3, "the recreated blob, untouched by the old handles")
		closeBlob(t, again)
	}},
}

// Cases that need Hooks.
var hookCases = []hookCase{
	{"FailedSyncPoisonsHandle", needsFailSyncs, func(t T, s simrt.Storage, h Hooks) {
		for _, how := range []string{"Sync", "StartSync", "WriteSync"} {
			b, _ := open(t, s, "partition", how)
			write(t, b, 0, simrt.WriteSync, []byte("durable"))
			write(t, b, 0, 0, []byte("pending"))
			h.FailSyncs(true)
			var first error
			switch how {
			case "Sync":
				first = b.Sync()
			case "StartSync":
				_, first = await(t, b.StartSync())
			case "WriteSync":
				first = b.WriteAt(7, simrt.WriteSync, []byte("!"))
			}
			h.FailSyncs(false)
			if first == nil {
				t.Fatalf("%s succeeded while syncs fail", how)
			}
			// The kernel may have dropped the pages it could not write: a
			// retried sync must not report them durable.
			poisoned := func(err error, op string) {
				t.Helper()
				if !errors.Is(err, first) {
					t.Fatalf("after a failed %s, %s = %v; want the failed sync's error %v", how, op, err, first)
				}
			}
			poisoned(b.Sync(), "Sync")
			_, err := await(t, b.StartSync())
			poisoned(err, "StartSync")
			poisoned(b.WriteAt(0, 0, []byte("x")), "WriteAt")
			poisoned(b.WriteAt(0, simrt.WriteSync, []byte("x")), "WriteAt WriteSync")
			poisoned(b.Resize(1), "Resize")
			poisoned(b.Sync(), "a second retried Sync")
			expectRead(t, b, 0, []byte("pending"), "reads still work on a poisoned handle")
			closeBlob(t, b)
			b, _ = open(t, s, "partition", how)
			write(t, b, 0, simrt.WriteSync, []byte("reopen"))
			sync(t, b)
			expectRead(t, b, 0, []byte("reopen"), "a reopened handle is no longer poisoned")
			closeBlob(t, b)
		}
	}},
	{"FailedSyncPoisonsOnlyItsHandle", needsFailSyncs, func(t T, s simrt.Storage, h Hooks) {
		a, _ := open(t, s, "partition", "a")
		b, _ := open(t, s, "partition", "b")
		h.FailSyncs(true)
		if a.Sync() == nil {
			t.Fatal("Sync succeeded while syncs fail")
		}
		h.FailSyncs(false)
		write(t, b, 0, simrt.WriteSync, []byte("other"))
		sync(t, b)
		closeBlob(t, a)
		closeBlob(t, b)
	}},
	{"ScanSkipsStrayFiles", func(h Hooks) bool { return h.PlaceStray != nil }, func(t T, s simrt.Storage, h Hooks) {
		// A stray file never breaks the listing of the real blobs: names
		// that are not canonical lowercase hex are not blobs, and skipped.
		for _, name := range []string{"blob1", "blob2"} {
			b, _ := open(t, s, "partition", name)
			closeBlob(t, b)
		}
		for _, stray := range []string{"x.tmp", "ABCD", "abc", "zz", ".hidden", "626C6F6231"} {
			h.PlaceStray("partition", stray)
		}
		names := scan(t, s, "partition")
		if len(names) != 2 || string(names[0]) != "blob1" || string(names[1]) != "blob2" {
			t.Fatalf("Scan with stray files = %q, want [blob1 blob2]", names)
		}
		h.PlaceStray("strays_only", "x.tmp")
		if names := scan(t, s, "strays_only"); len(names) != 0 {
			t.Fatalf("Scan of a partition of strays = %q, want none", names)
		}
	}},
}

func needsFailSyncs(h Hooks) bool { return h.FailSyncs != nil }
