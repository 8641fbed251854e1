package storagetest

import (
	"bytes"

	"github.com/simrt/simrt"
)

// Reads, writes, resizes and syncs on one open blob.
var rwCases = []testCase{
	{"OpenAndWrite", func(t T, s simrt.Storage) {
		b, n := open(t, s, "partition", "test_blob")
		expectSize(t, n, 0, "a new blob is empty")
		write(t, b, 0, 0, []byte("hello world"))
		expectRead(t, b, 0, []byte("hello world"), "a write is readable at once")
	}},
	{"SequentialAccess", func(t T, s simrt.Storage) {
		// Two goroutines use one handle in turn (a Blob is used by one task
		// at a time): what one writes, the next reads. Native goroutines on
		// purpose: storage operations never park, and this pins that a
		// handle may move between the goroutines of production tasks.
		b, _ := open(t, s, "partition", "test_blob")
		done := make(chan error)
		go func() { done <- b.WriteAt(0, 0, []byte("concurrent write")) }()
		if err := <-done; err != nil {
			t.Fatalf("WriteAt from a goroutine: %v", err)
		}
		got := make(chan []byte)
		go func() {
			p := make([]byte, 16)
			_ = b.ReadAt(p, 0)
			got <- p
		}()
		if p := <-got; string(p) != "concurrent write" {
			t.Fatalf("a handle passed between goroutines read %q", p)
		}
	}},
	{"LargeData", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "large_blob")
		data := pattern(10<<20, 3)
		write(t, b, 0, 0, data)
		expectRead(t, b, 0, data, "10 MiB round-trip")
	}},
	{"OverwriteData", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_overwrite")
		write(t, b, 0, 0, []byte("initial data"))
		write(t, b, 8, 0, []byte("overwrite"))
		expectRead(t, b, 0, []byte("initial overwrite"), "a later write replaces the bytes it covers")
	}},
	{"ReadBeyondBound", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		write(t, b, 0, 0, []byte("hello"))
		expectReadFails(t, b, 6, 10, "a read past the end")
		expectReadFails(t, b, 3, 10, "a read straddling the end")
		err := b.ReadAt(make([]byte, 10), 6)
		expectIs(t, err, simrt.ErrBlobInsufficientLength, "a read past the end")
	}},
	{"WriteAtLargeOffset", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_large_offset")
		write(t, b, 10000, 0, []byte("offset data"))
		expectRead(t, b, 10000, []byte("offset data"), "a write far past the end")
		expectRead(t, b, 0, make([]byte, 10000), "the gap before a far write reads as zeros")
	}},
	{"WriteAtSync", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		write(t, b, 1024, simrt.WriteSync)
		closeBlob(t, b)
		b, n := open(t, s, "partition", "test_blob")
		expectSize(t, n, 0, "a WriteSync write of zero bytes does not extend the blob")
		write(t, b, 0, simrt.WriteSync, []byte("hello"))
		write(t, b, 5, simrt.WriteSync, []byte(" "), []byte("world"))
		closeBlob(t, b)
		b, n = open(t, s, "partition", "test_blob")
		expectSize(t, n, 11, "WriteSync writes are durable without Sync")
		expectRead(t, b, 0, []byte("hello world"), "WriteSync writes after reopen")
	}},
	{"StartSync", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "test_blob")
		write(t, b, 0, 0, []byte("hello world"))
		if _, err := await(t, b.StartSync()); err != nil {
			t.Fatalf("StartSync handle: %v", err)
		}
		closeBlob(t, b)
		b, n := open(t, s, "partition", "test_blob")
		expectSize(t, n, 11, "an awaited StartSync is durable")
		expectRead(t, b, 0, []byte("hello world"), "data after StartSync and reopen")
		// An abandoned handle does not harm the blob.
		write(t, b, 11, 0, []byte("!"))
		_ = b.StartSync()
		sync(t, b)
		expectRead(t, b, 0, []byte("hello world!"), "after an abandoned StartSync")
	}},
	{"AppendData", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "append_blob")
		write(t, b, 0, 0, []byte("first"))
		write(t, b, 5, 0, []byte("second"))
		expectRead(t, b, 0, []byte("firstsecond"), "writes at the end append")
	}},
	{"VectoredWriteAt", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "vectored")
		write(t, b, 0, 0, []byte("abc"), []byte("def"), []byte("ghi"))
		expectRead(t, b, 0, []byte("abcdefghi"), "chunks are written in order")
		write(t, b, 0, 0, []byte{}, []byte("XY"), nil, []byte("Z"), []byte{})
		expectRead(t, b, 0, []byte("XYZdefghi"), "empty chunks are skipped")
		// More chunks than one vectored system call takes.
		many := make([][]byte, 1025)
		want := make([]byte, 1025)
		for i := range many {
			many[i] = []byte{byte(i)}
			want[i] = byte(i)
		}
		write(t, b, 100, 0, many...)
		expectRead(t, b, 100, want, "1025 one-byte chunks")
		write(t, b, 2000, simrt.WriteSync, many...)
		expectRead(t, b, 2000, want, "1025 one-byte chunks with WriteSync")
		closeBlob(t, b)
		b, n := open(t, s, "partition", "vectored")
		expectSize(t, n, 3025, "a vectored WriteSync is durable")
		expectRead(t, b, 2000, want, "1025 one-byte chunks after reopen")
	}},
	{"VectoredWriteAtLargeOffset", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "vectored_offset")
		write(t, b, 5000, 0, []byte("hello"), []byte(" "), []byte("world"))
		expectRead(t, b, 5000, []byte("hello world"), "a vectored write far past the end")
		expectRead(t, b, 0, make([]byte, 5000), "the gap before it reads as zeros")
	}},
	{"SequentialReadWrite", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "sequential")
		write(t, b, 0, 0, []byte("first"))
		write(t, b, 10, 0, []byte("second"))
		expectRead(t, b, 0, []byte("first"), "first of two separate writes")
		expectRead(t, b, 10, []byte("second"), "second of two separate writes")
		expectRead(t, b, 5, make([]byte, 5), "the gap between them")
	}},
	{"SequentialChunkReadWrite", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "chunks")
		const chunk = 1 << 20
		for i := range 10 {
			write(t, b, uint64(i*chunk), 0, pattern(chunk, byte(i)))
		}
		for i := range 10 {
			expectRead(t, b, uint64(i*chunk), pattern(chunk, byte(i)), "1 MiB chunk")
		}
	}},
	{"ReadEmptyBlob", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "empty")
		expectReadFails(t, b, 0, 1, "one byte of an empty blob")
	}},
	{"OverlappingWrites", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "overlap")
		write(t, b, 0, 0, []byte("overlap"))
		write(t, b, 4, 0, []byte("map"))
		expectRead(t, b, 0, []byte("overmap"), "an overlapping write")
	}},
	{"ResizeThenOpen", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "resize")
		write(t, b, 0, 0, []byte("hello world"))
		if err := b.Resize(5); err != nil {
			t.Fatalf("Resize(5): %v", err)
		}
		sync(t, b)
		closeBlob(t, b)
		b, n := open(t, s, "partition", "resize")
		expectSize(t, n, 5, "a synced truncation")
		expectRead(t, b, 0, []byte("hello"), "bytes kept by the truncation")
		if err := b.Resize(8); err != nil {
			t.Fatalf("Resize(8): %v", err)
		}
		expectRead(t, b, 0, []byte("hello\x00\x00\x00"), "an extension reads as zeros")
	}},
	{"AlignedLayout", func(t T, s simrt.Storage) {
		b, n, v, err := s.OpenVersioned("partition", []byte("aligned"), simrt.VersionRange{})
		if err != nil || n != 0 || v != 0 {
			t.Fatalf("OpenVersioned(0..=0) = %d, %d, %v; want 0, 0, nil", n, v, err)
		}
		write(t, b, 0, 0, []byte("hello world"))
		sync(t, b)
		closeBlob(t, b)
		b, n = open(t, s, "partition", "aligned")
		expectSize(t, n, 11, "the header is not part of the logical size")
		expectRead(t, b, 6, []byte("world"), "logical offsets skip the header")
		if err := b.Resize(5); err != nil {
			t.Fatalf("Resize(5): %v", err)
		}
		sync(t, b)
		closeBlob(t, b)
		b, n = open(t, s, "partition", "aligned")
		expectSize(t, n, 5, "a resize is logical")
		expectRead(t, b, 0, []byte("hello"), "after resize and reopen")
	}},
	{"ReadZeroLength", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "zero")
		if err := b.ReadAt(nil, 0); err != nil {
			t.Fatalf("a zero-length read of an empty blob: %v", err)
		}
		write(t, b, 0, 0, []byte("hello"))
		if err := b.ReadAt([]byte{}, 5); err != nil {
			t.Fatalf("a zero-length read at the end: %v", err)
		}
	}},
	{"ReadFillsCallerBuffer", func(t T, s simrt.Storage) {
		// read_at_buf_returns_same_buffer: data lands in the caller's
		// memory, whatever slice of a larger array it is.
		b, _ := open(t, s, "partition", "inplace")
		write(t, b, 0, 0, []byte("hello world"))
		arr := bytes.Repeat([]byte{'.'}, 20)
		if err := b.ReadAt(arr[3:14], 0); err != nil {
			t.Fatal(err)
		}
		if string(arr) != "...hello world......" {
			t.Fatalf("ReadAt into a subslice left %q", arr)
		}
	}},
	{"FailedReadNeverPanics", func(t T, s simrt.Storage) {
		// read_at_buf_insufficient_capacity: a read the blob cannot satisfy
		// is an error, never a panic, whatever the offset.
		b, _ := open(t, s, "partition", "short")
		write(t, b, 0, 0, []byte("hello world"))
		for _, off := range []uint64{0, 5, 11, 12, 1 << 40, 1<<64 - 1} {
			expectReadFails(t, b, off, 16, "a read the blob cannot satisfy")
		}
		expectRead(t, b, 0, []byte("hello world"), "contents after failed reads")
	}},
	{"ReadIntoLargerBuffer", func(t T, s simrt.Storage) {
		// read_at_buf_larger_capacity: capacity beyond the length is left
		// alone.
		b, _ := open(t, s, "partition", "capacity")
		write(t, b, 0, 0, []byte("hello world"))
		buf := bytes.Repeat([]byte{'#'}, 64)
		for _, n := range []int{11, 5} {
			if err := b.ReadAt(buf[:n], 0); err != nil {
				t.Fatal(err)
			}
			if string(buf[:11]) != "hello world" || buf[11] != '#' {
				t.Fatalf("ReadAt(buf[:%d]) left %q", n, buf[:12])
			}
		}
	}},
	{"DontCacheChangesNothing", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "dontcache")
		write(t, b, 0, simrt.WriteDontCache, []byte("hello "), []byte("world"))
		write(t, b, 20, simrt.WriteDontCache|simrt.WriteSync, []byte("synced"))
		expectRead(t, b, 0, []byte("hello world"), "WriteDontCache")
		expectReadFails(t, b, 26, 1, "past the end with WriteDontCache")
		closeBlob(t, b)
		b, n := open(t, s, "partition", "dontcache")
		expectSize(t, n, 26, "WriteDontCache|WriteSync is durable")
		expectRead(t, b, 20, []byte("synced"), "WriteDontCache|WriteSync after reopen")
	}},
	{"OffsetOverflow", func(t T, s simrt.Storage) {
		b, _ := open(t, s, "partition", "overflow")
		err := b.WriteAt(1<<64-2, 0, []byte("abc"))
		expectIs(t, err, simrt.ErrOffsetOverflow, "a write whose end overflows")
		expectReadFails(t, b, 0, 1, "nothing was written")
	}},
}
