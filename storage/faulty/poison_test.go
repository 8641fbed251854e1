package faulty_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/faulty"
)

// TestFailedSyncBytesAreNotDurable: after a failed sync, no retry makes the
// bytes it covered durable; a crash without retention loses them, and a
// reopen sees only what was durable before.
func TestFailedSyncBytesAreNotDurable(t *testing.T) {
	for _, how := range []string{"sync", "sync write", "start sync"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, 1, faulty.Config{})
			b := e.open("a")
			e.write(b, 0, simrt.WriteSync, "old")
			e.fs.Config().SyncRate = 1
			var err error
			switch how {
			case "sync":
				e.write(b, 0, 0, "new")
				err = b.Sync()
			case "sync write":
				err = b.WriteAt(0, simrt.WriteSync, []byte("new"))
			case "start sync":
				e.write(b, 0, 0, "new")
				_, err = await(b.StartSync())
			}
			if !isInjected(err) {
				t.Fatalf("%s with SyncRate 1: %v", how, err)
			}
			e.fs.Config().SyncRate = 0
			if err := b.Sync(); !isInjected(err) {
				t.Fatalf("a retried sync: %v, want the failed sync's error", err)
			}
			if got := e.durable("a"); got != "old" {
				t.Fatalf("durable after the retry %q, want %q", got, "old")
			}
			if got := e.crash("a"); got != "old" {
				t.Fatalf("after crash %q, want %q", got, "old")
			}
		})
	}
}

// TestFailedSyncDropsUnsyncedAtClose: a handle whose sync failed leaves no
// page cache when it is closed (the kernel may have dropped the pages it
// could not write): the reopen sees what was durable. A healthy handle's
// close keeps its unsynced writes for the reopen.
func TestFailedSyncDropsUnsyncedAtClose(t *testing.T) {
	e := newEnv(t, 1, faulty.Config{})
	b := e.open("a")
	e.write(b, 0, simrt.WriteSync, "old")
	e.write(b, 0, 0, "new")
	e.fs.Config().SyncRate = 1
	if err := b.Sync(); !isInjected(err) {
		t.Fatalf("Sync with SyncRate 1: %v", err)
	}
	e.fs.Config().SyncRate = 0
	b.Close()
	read := func(name string) string {
		t.Helper()
		b := e.open(name)
		defer b.Close()
		p := make([]byte, 3)
		if err := b.ReadAt(p, 0); err != nil {
			t.Fatal(err)
		}
		return string(p)
	}
	if got := read("a"); got != "old" {
		t.Fatalf("reopened after a failed sync: %q, want the durable %q", got, "old")
	}
	c := e.open("c")
	e.write(c, 0, 0, "new")
	c.Close()
	if got := read("c"); got != "new" {
		t.Fatalf("reopened after a plain close: %q, want the unsynced %q", got, "new")
	}
}
