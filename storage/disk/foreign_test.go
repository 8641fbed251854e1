//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package disk_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
	"github.com/simrt/simrt/storage/disk"
)

// TestForeignFileIsNotOverwritten: a file at a blob's path that is neither
// empty nor what a torn creation leaves is someone else's, however short:
// the open fails with ErrBlobCorrupt and the file keeps every byte.
func TestForeignFileIsNotOverwritten(t *testing.T) {
	for _, raw := range [][]byte{
		[]byte("x"),
		[]byte("hello\n"),
		{1, 2, 3, 4, 5, 6, 7},
		{0, 0, 0, 0, 0, 0, 9},
		{'C', 'W', 'I', 'K', 0, 2},
		[]byte("a text file of some length"),
	} {
		s, root := newStorage(t)
		writeRaw(t, root, "p", "61", raw)
		_, _, err := s.Open("p", []byte("a"))
		if !errors.Is(err, simrt.ErrBlobCorrupt) {
			t.Fatalf("open over %q: %v, want ErrBlobCorrupt", raw, err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "p", "61")); !bytes.Equal(got, raw) {
			t.Fatalf("a refused open changed %q to %q", raw, got)
		}
	}
}

// TestSymlinkIsNotFollowed: a symbolic link at a blob's path is refused,
// whether it points at a file (which keeps its bytes), at a blob, or at
// nothing (no file is created at its target).
func TestSymlinkIsNotFollowed(t *testing.T) {
	s, root := newStorage(t)
	outside := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(outside, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(t.TempDir(), "nothing")
	writeRaw(t, root, "p", "6262", storage.NewHeader(0))
	if err := os.Symlink(outside, filepath.Join(root, "p", "61")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dangling, filepath.Join(root, "p", "62")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("6262", filepath.Join(root, "p", "63")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		_, _, err := s.Open("p", []byte(name))
		if !errors.Is(err, simrt.ErrBlobCorrupt) {
			t.Fatalf("open through a symlink %q: %v, want ErrBlobCorrupt", name, err)
		}
	}
	if got, _ := os.ReadFile(outside); string(got) != "abc" {
		t.Fatalf("the link's target became %q", got)
	}
	if _, err := os.Lstat(dangling); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dangling link's target was created: %v", err)
	}
	if err := s.Remove("p", []byte("a")); !errors.Is(err, simrt.ErrBlobMissing) {
		t.Fatalf("Remove of a symlink: %v, want ErrBlobMissing", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "p", "61")); err != nil {
		t.Fatalf("Remove deleted a symlink that is not a blob: %v", err)
	}
}

// TestNonRegularFilesAreRefused: a directory or a named pipe at a blob's
// path is not a blob.
func TestNonRegularFilesAreRefused(t *testing.T) {
	s, root := newStorage(t)
	if err := os.MkdirAll(filepath.Join(root, "p", "61"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "p", "62"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		_, _, err := s.Open("p", []byte(name))
		if !errors.Is(err, simrt.ErrBlobCorrupt) {
			t.Fatalf("open over a non-regular file %q: %v, want ErrBlobCorrupt", name, err)
		}
	}
}

// TestSecondStorageOnOneDirectoryFails: the directory lock keeps two
// Storages (here in one process; flock works across processes alike) from
// both opening one blob; Close hands the directory over.
func TestSecondStorageOnOneDirectoryFails(t *testing.T) {
	s, root := newStorage(t)
	b, _, err := s.Open("p", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := disk.New(root); !errors.Is(err, disk.ErrLocked) {
		t.Fatalf("a second New on one directory: %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, simrt.ErrClosed) {
		t.Fatalf("a second Close: %v", err)
	}
	if _, _, err := s.Open("p", []byte("b")); !errors.Is(err, simrt.ErrClosed) {
		t.Fatalf("Open after Close: %v, want ErrClosed", err)
	}
	if err := b.WriteAt(0, simrt.WriteSync, []byte("still usable")); err != nil {
		t.Fatalf("a blob open when its Storage closed: %v", err)
	}
	b.Close()
	s2, err := disk.New(root)
	if err != nil {
		t.Fatalf("New after the first Storage closed: %v", err)
	}
	defer s2.Close()
	b, n, err := s2.Open("p", []byte("a"))
	if err != nil || n != 12 {
		t.Fatalf("reopen in the second Storage: %d, %v", n, err)
	}
	b.Close()
}
