package storagetest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/simrt/simrt"
)

// Partitions, names, removal, versions and exclusive opens.
var nsCases = []testCase{
	{"Remove", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		closeBlob(t, b)
		if err := s.Remove("partition", []byte("test_blob")); err != nil {
			t.Fatalf("Remove: %v", err)
		}
		if names := scan(t, s, "partition"); len(names) != 0 {
			t.Fatalf("an emptied partition scans as %q, want no names", names)
		}
		err := s.Remove("partition", []byte("test_blob"))
		expectIs(t, err, simrt.ErrBlobMissing, "removing a removed blob")
		if want := "blob missing: partition/746573745f626c6f62"; err.Error() != want {
			t.Fatalf("error text %q, want %q", err, want)
		}
		var be *simrt.BlobError
		if !errors.As(err, &be) || be.Partition != "partition" || be.Name != "746573745f626c6f62" {
			t.Fatalf("errors.As(%v) gives %+v, want partition and hex name", err, be)
		}
		expectIs(t, s.Remove("nowhere", []byte("x")), simrt.ErrPartitionMissing, "a blob of a missing partition")
		expectIs(t, s.RemovePartition("nowhere"), simrt.ErrPartitionMissing, "a missing partition")
		_, err = s.Scan("nowhere")
		expectIs(t, err, simrt.ErrPartitionMissing, "scanning a missing partition")
	}},
	{"ReadAfterRemoveBlob", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		data := pattern(256, 0)
		write(t, b, 0, 0, data)
		sync(t, b)
		if err := s.Remove("partition", []byte("test_blob")); err != nil {
			t.Fatal(err)
		}
		if names := scan(t, s, "partition"); len(names) != 0 {
			t.Fatalf("scan after remove = %q", names)
		}
		expectRead(t, b, 0, data, "a handle reads its removed blob")
	}},
	{"ReadAfterRemovePartition", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		data := pattern(256, 0)
		for i := range data {
			data[i] = byte(255 - i)
		}
		write(t, b, 0, 0, data)
		sync(t, b)
		if err := s.RemovePartition("partition"); err != nil {
			t.Fatal(err)
		}
		_, err := s.Scan("partition")
		expectIs(t, err, simrt.ErrPartitionMissing, "scan of a removed partition")
		expectRead(t, b, 0, data, "a handle reads a blob of its removed partition")
	}},
	{"RecreateAfterRemove", func(t T, s simrt.Storage) {
		old, _ := open(t, s, "partition", "test_blob")
		write(t, old, 0, 0, []byte("old contents"))
		sync(t, old)
		if err := s.Remove("partition", []byte("test_blob")); err != nil {
			t.Fatal(err)
		}
		cur, n := open(t, s, "partition", "test_blob")
		expectSize(t, n, 0, "a blob recreated after removal")
		write(t, cur, 0, 0, []byte("new"))
		sync(t, cur)
		expectRead(t, old, 0, []byte("old contents"), "the old handle keeps the old contents")
		expectRead(t, cur, 0, []byte("new"), "the new blob is independent")
		write(t, old, 0, 0, []byte("OLD"))
		expectRead(t, cur, 0, []byte("new"), "writes through the removed handle never reach the new blob")
		_ = old.Sync() // may fail: the blob is gone
		closeBlob(t, old)
		closeBlob(t, cur)
		cur, n = open(t, s, "partition", "test_blob")
		expectSize(t, n, 3, "the new blob after reopen")
		expectRead(t, cur, 0, []byte("new"), "the new blob after reopen")
	}},
	{"ReadAfterRemoveUnsynced", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "unsynced")
		data := pattern(64<<10, 1)
		write(t, b, 0, 0, data)
		expectRead(t, b, 0, data[:16], "before removal")
		if err := s.Remove("partition", []byte("unsynced")); err != nil {
			t.Fatal(err)
		}
		expectRead(t, b, 0, data, "unsynced bytes after removal")
		expectRead(t, b, uint64(len(data)-1), data[len(data)-1:], "the last unsynced byte")
	}},
	{"ReadAfterRemoveSharedHandle", func(t T, s simrt.Storage) {
		// read_after_remove_handle_clones: one handle shared by several
		// owners keeps reading after removal; an open made after removal is
		// a new blob; closing the removed handle changes neither.
		b, _ := open(t, s, "partition", "shared")
		data := pattern(1000, 9)
		write(t, b, 0, 0, data)
		sync(t, b)
		shared := b
		_, _, err := s.Open("partition", []byte("shared"))
		expectIs(t, err, simrt.ErrBlobAlreadyOpen, "a second open before removal")
		if err := s.Remove("partition", []byte("shared")); err != nil {
			t.Fatal(err)
		}
		fresh, n := open(t, s, "partition", "shared")
		expectSize(t, n, 0, "an open after removal")
		expectRead(t, shared, 0, data, "a shared removed handle")
		closeBlob(t, b)
		expectReadFails(t, fresh, 0, 1, "the new blob is empty")
		write(t, fresh, 0, 0, []byte("x"))
		expectRead(t, fresh, 0, []byte("x"), "the new blob after the old handle closed")
	}},
	{"RecreateGenerations", func(t T, s simrt.Storage) {
		var held []simrt.Blob
		for g := range 3 {
			b, n := open(t, s, "partition", "gen")
			expectSize(t, n, 0, fmt.Sprintf("generation %d starts empty", g))
			write(t, b, 0, 0, pattern(100+g, byte(g)))
			sync(t, b)
			if err := s.Remove("partition", []byte("gen")); err != nil {
				t.Fatal(err)
			}
			held = append(held, b)
		}
		for i := range 5 {
			b, n := open(t, s, "partition", "gen")
			expectSize(t, n, 0, fmt.Sprintf("churn %d starts empty", i))
			write(t, b, 0, simrt.WriteSync, []byte("churn"))
			if err := s.Remove("partition", []byte("gen")); err != nil {
				t.Fatal(err)
			}
			closeBlob(t, b)
		}
		for g, b := range held {
			expectRead(t, b, 0, pattern(100+g, byte(g)), fmt.Sprintf("generation %d reads its own bytes", g))
			expectReadFails(t, b, uint64(100+g), 1, "each generation keeps its own size")
			closeBlob(t, b)
		}
	}},
	{"ReadAfterRemovePartitionMulti", func(t T, s simrt.Storage) {
		synced, _ := open(t, s, "partition", "synced")
		unsynced, _ := open(t, s, "partition", "unsynced")
		large, _ := open(t, s, "partition", "large")
		a, b, c := pattern(200000, 1), pattern(200000, 2), pattern(1<<20, 3)
		write(t, synced, 0, 0, a)
		sync(t, synced)
		write(t, unsynced, 0, 0, b)
		write(t, large, 0, 0, c)
		if err := s.RemovePartition("partition"); err != nil {
			t.Fatal(err)
		}
		for _, h := range []struct {
			b    simrt.Blob
			data []byte
		}{{synced, a}, {unsynced, b}, {large, c}} {
			for _, r := range [][2]int{{0, 4096}, {123457, 8192}, {len(h.data) - 1, 1}} {
				expectRead(t, h.b, uint64(r[0]), h.data[r[0]:r[0]+r[1]], "after partition removal")
			}
		}
		again, n := open(t, s, "partition", "synced")
		expectSize(t, n, 0, "a blob recreated in a recreated partition")
		write(t, again, 0, 0, []byte("independent"))
		expectRead(t, synced, 0, a[:11], "the old handle after recreation")
	}},
	{"Scan", func(t T, s simrt.Storage) {
		open(t, s, "partition", "blob1")
		open(t, s, "partition", "blob2")
		open(t, s, "other", "blob3")
		names := scan(t, s, "partition")
		if len(names) != 2 || !bytes.Equal(names[0], []byte("blob1")) || !bytes.Equal(names[1], []byte("blob2")) {
			t.Fatalf("Scan = %q, want [blob1 blob2] in order", names)
		}
	}},
	{"PartitionNameValidation", func(t T, s simrt.Storage) {
		for _, p := range []string{"partition", "my_partition", "my-partition", "partition123", "A1"} {
			if b, _, err := s.Open(p, []byte("blob")); errors.Is(err, simrt.ErrPartitionNameInvalid) {
				t.Fatalf("Open(%q) rejected a valid name", p)
			} else if err == nil {
				closeBlob(t, b)
			}
			if _, err := s.Scan(p); errors.Is(err, simrt.ErrPartitionNameInvalid) {
				t.Fatalf("Scan(%q) rejected a valid name", p)
			}
			if err := s.Remove(p, []byte("blob")); errors.Is(err, simrt.ErrPartitionNameInvalid) {
				t.Fatalf("Remove(%q) rejected a valid name", p)
			}
		}
		for _, p := range []string{"my/partition", "my.partition", "my partition", "../escape", ""} {
			_, _, err := s.Open(p, []byte("blob"))
			expectIs(t, err, simrt.ErrPartitionNameInvalid, "Open("+p+")")
			_, err = s.Scan(p)
			expectIs(t, err, simrt.ErrPartitionNameInvalid, "Scan("+p+")")
			expectIs(t, s.Remove(p, []byte("blob")), simrt.ErrPartitionNameInvalid, "Remove("+p+")")
			expectIs(t, s.RemovePartition(p), simrt.ErrPartitionNameInvalid, "RemovePartition("+p+")")
		}
		_, _, err := s.Open("my.partition", []byte("blob"))
		want := "partition name invalid, must only contain alphanumeric, dash ('-'), or underscore ('_') characters: my.partition"
		if err.Error() != want {
			t.Fatalf("error text %q, want %q", err, want)
		}
	}},
	{"BlobVersionMismatch", func(t T, s simrt.Storage) {
		b, _, v, err := s.OpenVersioned("partition", []byte("versioned"), simrt.VersionRange{Min: 1, Max: 1})
		if err != nil || v != 1 {
			t.Fatalf("create with 1..=1: version %d, %v", v, err)
		}
		closeBlob(t, b)
		b, _, v, err = s.OpenVersioned("partition", []byte("versioned"), simrt.VersionRange{Min: 0, Max: 2})
		if err != nil || v != 1 {
			t.Fatalf("reopen with 0..=2: version %d, %v; want 1", v, err)
		}
		closeBlob(t, b)
		_, _, _, err = s.OpenVersioned("partition", []byte("versioned"), simrt.VersionRange{Min: 2, Max: 3})
		var vm *simrt.VersionMismatchError
		if !errors.As(err, &vm) || vm.Expected != (simrt.VersionRange{Min: 2, Max: 3}) || vm.Found != 1 {
			t.Fatalf("reopen with 2..=3 = %v, want a version mismatch", err)
		}
		if want := "blob version mismatch: expected one of 2..=3, found 1"; err.Error() != want {
			t.Fatalf("error text %q, want %q", err, want)
		}
		b, _ = open(t, s, "partition", "plain")
		closeBlob(t, b)
		_, _, _, err = s.OpenVersioned("partition", []byte("plain"), simrt.VersionRange{Min: 1, Max: 1})
		expectIs(t, err, simrt.ErrBlobVersionMismatch, "a version 0 blob opened as 1..=1")
	}},
	{"ExclusiveOpen", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "blob")
		_, _, err := s.Open("partition", []byte("blob"))
		expectIs(t, err, simrt.ErrBlobAlreadyOpen, "a second open")
		if want := "blob already open: partition/626c6f62"; err.Error() != want {
			t.Fatalf("error text %q, want %q", err, want)
		}
		other, _ := open(t, s, "partition", "other")
		closeBlob(t, other)
		closeBlob(t, b)
		b, _ = open(t, s, "partition", "blob")
		closeBlob(t, b)
	}},
	{"CloseReleasesOnlyItsOwnOpen", func(t T, s simrt.Storage) {
		old, _ := open(t, s, "partition", "blob")
		write(t, old, 0, 0, []byte("old"))
		if err := s.RemovePartition("partition"); err != nil {
			t.Fatal(err)
		}
		cur, n := open(t, s, "partition", "blob")
		expectSize(t, n, 0, "an open after removal while the old handle lives")
		closeBlob(t, old)
		_, _, err := s.Open("partition", []byte("blob"))
		expectIs(t, err, simrt.ErrBlobAlreadyOpen, "closing a removed handle must not release its replacement")
		write(t, cur, 0, 0, []byte("new"))
		sync(t, cur)
		expectRead(t, cur, 0, []byte("new"), "the replacement after the old handle closed")
		closeBlob(t, cur)
		cur, n = open(t, s, "partition", "blob")
		expectSize(t, n, 3, "the replacement after reopen")
		closeBlob(t, cur)
	}},
	{"ClosedHandleFails", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "blob")
		write(t, b, 0, simrt.WriteSync, []byte("data"))
		closeBlob(t, b)
		expectIs(t, b.Close(), simrt.ErrClosed, "a second Close")
		expectIs(t, b.ReadAt(make([]byte, 1), 0), simrt.ErrClosed, "ReadAt after Close")
		expectIs(t, b.WriteAt(0, 0, []byte("x")), simrt.ErrClosed, "WriteAt after Close")
		expectIs(t, b.Resize(0), simrt.ErrClosed, "Resize after Close")
		expectIs(t, b.Sync(), simrt.ErrClosed, "Sync after Close")
		_, err := await(t, b.StartSync())
		expectIs(t, err, simrt.ErrClosed, "StartSync after Close")
		b, n := open(t, s, "partition", "blob")
		expectSize(t, n, 4, "calls on a closed handle change nothing")
		closeBlob(t, b)
	}},
	{"EmptyBlobName", func(t T, s simrt.Storage) {
		_, _, err := s.Open("partition", nil)
		expectIs(t, err, simrt.ErrBlobOpenFailed, "an empty blob name")
	}},
}

var cases = append(append(append([]testCase(nil), rwCases...), nsCases...), agreeCases...)
