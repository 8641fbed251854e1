package disk_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
	"github.com/simrt/simrt/storage/disk"
)

// FuzzOpenForeignFile opens a blob over a file of arbitrary content. The
// open never panics; an open that fails leaves the file exactly as it was;
// an open that succeeds changes the file only when its content is what
// storage.Resolve calls a new blob (empty, or left by a torn creation), and
// then the file is a fresh header.
func FuzzOpenForeignFile(f *testing.F) {
	valid := storage.NewHeader(2)
	f.Add([]byte{})
	f.Add([]byte("x"))
	f.Add([]byte{'C', 'W'})
	f.Add(valid[:10])
	f.Add(valid)
	f.Add(append(append([]byte(nil), valid...), "data"...))
	f.Add([]byte{'C', 'W', 'I', 'C', 0, 0, 0, 1, 'l'})
	f.Add(make([]byte, storage.HeaderSize+1))
	f.Fuzz(func(t *testing.T, raw []byte) {
		root := t.TempDir()
		s, err := disk.New(root)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		disk.NoSync(s)
		path := filepath.Join(root, "p", "61")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		any16 := simrt.VersionRange{Min: 0, Max: 0xFFFF}
		b, size, _, err := s.OpenVersioned("p", []byte("a"), any16)
		got, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		want, werr := storage.Resolve(raw, uint64(len(raw)), any16)
		if err != nil {
			if !bytes.Equal(got, raw) {
				t.Fatalf("a refused open (%v) changed the file from % x to % x", err, head(raw), head(got))
			}
			if werr == nil {
				t.Fatalf("open failed (%v) over content Resolve accepts (%+v)", err, want)
			}
			if !errors.Is(err, simrt.ErrBlobCorrupt) {
				t.Fatalf("open over foreign content: %v, want ErrBlobCorrupt", err)
			}
			return
		}
		defer b.Close()
		switch {
		case werr != nil:
			t.Fatalf("open succeeded over content Resolve refuses: %v", werr)
		case want.Fresh:
			if size != 0 || !bytes.Equal(got, storage.NewHeader(0xFFFF)) {
				t.Fatalf("a new blob over % x: size %d, file % x", head(raw), size, head(got))
			}
		case !bytes.Equal(got, raw) || size != want.Size:
			t.Fatalf("an existing blob changed on open: size %d (want %d), % x to % x", size, want.Size, head(raw), head(got))
		}
	})
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }
