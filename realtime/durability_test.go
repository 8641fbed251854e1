package realtime

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

func TestSyncStorageDirAtStartup(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := syncStorageDir(filepath.Join(dir, "missing"), log); err != nil {
		t.Fatalf("a missing directory has nothing to sync: %v", err)
	}
	part := filepath.Join(dir, "partition")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(part, "626c6f62"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syncStorageDir(dir, log); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if err := os.Chmod(filepath.Join(part, "626c6f62"), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root can open anything
		if err := syncStorageDir(dir, log); err == nil {
			t.Fatal("an unreadable blob file of ours must fail the startup sync")
		}
	}
}
