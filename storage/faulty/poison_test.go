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
