package memory_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/memory"
)

// TestPageCache checks that Close keeps unsynced bytes for the next open
// but not in durable state, and that DropPageCache and Snapshot forget
// them.
func TestPageCache(t *testing.T) {
	s := memory.New()
	write := func(data string, sync bool) {
		t.Helper()
		b, size, err := s.Open("p", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		var opts simrt.WriteOptions
		if sync {
			opts = simrt.WriteSync
		}
		if err := b.WriteAt(size, opts, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string {
		t.Helper()
		b, size, err := s.Open("p", []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, size)
		if err := b.ReadAt(p, 0); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		return string(p)
	}
	write("durable", true)
	write("+cached", false)
	if got, _ := s.LogicalBlob("p", []byte("x")); string(got) != "durable" {
		t.Fatalf("durable state %q, want %q", got, "durable")
	}
	if got := read(); got != "durable+cached" {
		t.Fatalf("open after a close reads %q, want the unsynced write too", got)
	}
	if got := read(); got != "durable+cached" {
		t.Fatalf("after a second close and open: %q, want the page cache kept", got)
	}
	s.DropPageCache()
	if got := read(); got != "durable" {
		t.Fatalf("after DropPageCache: %q", got)
	}
	write("+again", false)
	if got := read(); got != "durable+again" {
		t.Fatalf("cache again: %q", got)
	}
	b, _, err := s.Open("p", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil { // a cached page written back
		t.Fatal(err)
	}
	_ = b.Close()
	if got, _ := s.LogicalBlob("p", []byte("x")); string(got) != "durable+again" {
		t.Fatalf("a Sync of a handle opened from the cache makes it durable: %q", got)
	}
	write("+lost", false)
	r := memory.Restore(s.Snapshot())
	if got, _ := r.LogicalBlob("p", []byte("x")); string(got) != "durable+again" {
		t.Fatalf("Snapshot keeps the cache: %q", got)
	}
	s = r
	if got := read(); got != "durable+again" {
		t.Fatalf("a restored store reads %q", got)
	}
}

// TestResizeSurvivesClose checks that an unsynced truncation, like an
// unsynced write, is what the next open sees.
func TestResizeSurvivesClose(t *testing.T) {
	s := memory.New()
	b, _, err := s.Open("p", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAt(0, simrt.WriteSync, []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if err := b.Resize(4); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	b, size, err := s.Open("p", []byte("x"))
	if err != nil || size != 4 {
		t.Fatalf("reopen after an unsynced Resize(4): size %d, %v; want 4", size, err)
	}
	_ = b.Close()
	if got, _ := s.LogicalBlob("p", []byte("x")); string(got) != "0123456789" {
		t.Fatalf("durable state %q, want the synced bytes", got)
	}
}
