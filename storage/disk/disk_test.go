package disk_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/realtime"
	"github.com/simrt/simrt/storage"
	"github.com/simrt/simrt/storage/disk"
	"github.com/simrt/simrt/storage/storagetest"
	"github.com/simrt/simrt/suite"
)

func newStorage(t suite.T) (*disk.Storage, string) {
	t.Helper()
	root := t.TempDir()
	s, err := disk.New(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root
}

// production runs each conformance case as the root task of a fresh
// production runtime: the disk completes StartSync handles from its own
// goroutines, which a simulation would not wait for.
var production = suite.Runtime{
	TimedOut: realtime.ErrRunTimeout,
	Run: func(t suite.T, o suite.Options, root func(simrt.Context)) {
		cfg := realtime.Config{CatchPanics: o.CatchPanics, Timeout: o.Timeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		realtime.New(cfg).Start(root)
	},
}

func TestConformance(t *testing.T) {
	storagetest.RunWithHooks(t, production, func(t storagetest.T, _ simrt.Context) (simrt.Storage, storagetest.Hooks) {
		s, root := newStorage(t)
		fail := disk.FailSyncs(s)
		return s, storagetest.Hooks{
			FailSyncs: fail.Store,
			PlaceStray: func(partition, name string) {
				writeRaw(t, root, partition, name, []byte("not a blob"))
			},
		}
	})
}

func TestLayout(t *testing.T) {
	s, root := newStorage(t)
	b, _, _, err := s.OpenVersioned("part", []byte{0xAB, 0x01}, simrt.VersionRange{Min: 3, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteAt(0, simrt.WriteSync, []byte("data")); err != nil {
		t.Fatal(err)
	}
	b.Close()
	raw, err := os.ReadFile(filepath.Join(root, "part", "ab01"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != storage.HeaderSize+4 || !bytes.Equal(raw[:8], []byte{0x43, 0x57, 0x49, 0x4B, 0, 1, 0, 3}) ||
		string(raw[storage.HeaderSize:]) != "data" {
		t.Fatalf("file holds %d bytes starting % x", len(raw), raw[:8])
	}
}

// writeRaw replaces the blob file's bytes.
func writeRaw(t suite.T, root, partition, hexName string, raw []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, partition), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, partition, hexName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTornCreationRecovers(t *testing.T) {
	for _, raw := range [][]byte{
		{},
		{'C', 'W'},
		{'C', 'W', 'I', 'K', 0, 1, 0, 7},
		append([]byte{'C', 'W', 'I', 'K', 0, 1, 0, 0}, make([]byte, 100)...),
		storage.NewHeader(0)[:10], // the header truncated at 10 bytes
		make([]byte, storage.HeaderSize),
	} {
		s, root := newStorage(t)
		writeRaw(t, root, "p", "61", raw)
		b, size, err := s.Open("p", []byte("a"))
		if err != nil || size != 0 {
			t.Fatalf("torn %x: size %d, %v", raw, size, err)
		}
		b.Close()
		got, err := os.ReadFile(filepath.Join(root, "p", "61"))
		if err != nil || !bytes.Equal(got, storage.NewHeader(0)) {
			t.Fatalf("torn %x was not recreated as a new blob: % x, %v", raw, got[:min(len(got), 12)], err)
		}
	}
}

func TestCorruptHeaderIsAnErrorAndKeepsData(t *testing.T) {
	s, root := newStorage(t)
	raw := append(storage.NewHeader(0), []byte("precious")...)
	raw[8] ^= 0xFF // break the checksum
	writeRaw(t, root, "p", "61", raw)
	_, _, err := s.Open("p", []byte("a"))
	var be *simrt.BlobError
	if !errors.As(err, &be) || !errors.Is(err, simrt.ErrBlobCorrupt) || !errors.Is(err, simrt.ErrInvalidChecksum) {
		t.Fatalf("open of a corrupt blob: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "p", "61")); !bytes.Equal(got, raw) {
		t.Fatal("a failed open changed the file")
	}
}

func TestLegacyLayoutReads(t *testing.T) {
	s, root := newStorage(t)
	writeRaw(t, root, "p", "61", append([]byte{'C', 'W', 'I', 'C', 0, 0, 0, 2}, "legacy"...))
	b, size, v, err := s.OpenVersioned("p", []byte("a"), simrt.VersionRange{Min: 0, Max: 5})
	if err != nil || size != 6 || v != 2 {
		t.Fatalf("legacy open: size %d, version %d, %v", size, v, err)
	}
	p := make([]byte, 6)
	if err := b.ReadAt(p, 0); err != nil || string(p) != "legacy" {
		t.Fatalf("legacy read %q %v", p, err)
	}
	if err := b.WriteAt(6, simrt.WriteSync, []byte("!")); err != nil {
		t.Fatal(err)
	}
	b.Close()
	got, _ := os.ReadFile(filepath.Join(root, "p", "61"))
	if string(got[8:]) != "legacy!" {
		t.Fatalf("legacy write left %q", got)
	}
}

// TestScanSkipsEntriesThatAreNotBlobs: besides the stray files of the
// conformance suite, a directory or a symbolic link named like a blob is
// not a blob either, and is skipped.
func TestScanSkipsEntriesThatAreNotBlobs(t *testing.T) {
	s, root := newStorage(t)
	writeRaw(t, root, "p", "6162", storage.NewHeader(0))
	if err := os.Mkdir(filepath.Join(root, "p", "6364"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("6162", filepath.Join(root, "p", "6566")); err != nil {
		t.Fatal(err)
	}
	names, err := s.Scan("p")
	if err != nil || len(names) != 1 || string(names[0]) != "ab" {
		t.Fatalf("Scan = %q, %v; want [ab]", names, err)
	}
}

func TestStartSyncAbandonedKeepsBlobUsable(t *testing.T) {
	s, _ := newStorage(t)
	b, _, _ := s.Open("p", []byte("a"))
	b.WriteAt(0, 0, []byte("x"))
	_ = b.StartSync()
	if err := b.WriteAt(1, simrt.WriteSync, []byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// A blob whose creation fails for lack of space leaves no name behind:
// Scan listed it, and no Open could make it a blob while the disk stayed
// full. Once there is room, the name opens as a new blob.
func TestFullDiskCreationLeavesNoName(t *testing.T) {
	s, root := newStorage(t)
	full := disk.FullDisk(s)
	if b, _, err := s.Open("p", []byte("kept")); err != nil {
		t.Fatal(err)
	} else {
		b.Close()
	}
	full.Store(true)
	_, _, err := s.Open("p", []byte("new"))
	if !errors.Is(err, simrt.ErrBlobOpenFailed) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open on a full disk: %v, want ErrBlobOpenFailed caused by ENOSPC", err)
	}
	names, err := s.Scan("p")
	if err != nil || len(names) != 1 || string(names[0]) != "kept" {
		t.Errorf("Scan after the failed creation = %q, %v; want only \"kept\"", names, err)
	}
	if _, err := os.Stat(filepath.Join(root, "p", storage.HexName([]byte("new")))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file of the failed creation: %v, want it gone", err)
	}
	full.Store(false)
	b, size, err := s.Open("p", []byte("new"))
	if err != nil || size != 0 {
		t.Fatalf("Open once there is room: size %d, %v", size, err)
	}
	b.Close()
}
