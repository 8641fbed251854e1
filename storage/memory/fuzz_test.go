package memory_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/memory"
)

// model is the dumbest possible blob store: one durable and one live slice.
type model struct {
	durable, live []byte
}

// write writes data at off, to the durable slice too when sync is set. A
// zero-byte write does nothing, synced or not (storagetest's
// ZeroByteWriteDoesNothing, as os.File.WriteAt): it never extends the blob.
func (m *model) write(off int, data []byte, sync bool) {
	if len(data) == 0 {
		return
	}
	if end := off + len(data); end > len(m.live) {
		m.live = append(m.live, make([]byte, end-len(m.live))...)
	}
	copy(m.live[off:], data)
	if sync {
		if end := off + len(data); end > len(m.durable) {
			m.durable = append(m.durable, make([]byte, end-len(m.durable))...)
		}
		copy(m.durable[off:], data)
	}
}

func (m *model) resize(n int) {
	if n <= len(m.live) {
		m.live = m.live[:n]
		return
	}
	m.live = append(m.live, make([]byte, n-len(m.live))...)
}

// FuzzBlobAgainstModel decodes a program from the input, runs it on a
// memory blob and on the model, and compares every read, every size and the
// durable contents after each reopen.
func FuzzBlobAgainstModel(f *testing.F) {
	f.Add([]byte{0, 3, 5, 'a', 'b', 'c', 1, 0, 3, 2, 4})
	f.Add([]byte{0, 200, 2, 'x', 'y', 4, 5, 3, 6, 1})
	f.Add([]byte{7, 7, 7, 0, 1, 1, 'q', 2, 9, 3, 4, 6})
	f.Add([]byte{0, 0, 255, 1, 2, 3, 5, 0, 4, 1, 2, 0, 5})
	f.Fuzz(func(t *testing.T, prog []byte) {
		s := memory.New()
		b, _, err := s.Open("p", []byte("b"))
		if err != nil {
			t.Fatal(err)
		}
		m := &model{}
		next := func() int {
			if len(prog) == 0 {
				return 0
			}
			v := int(prog[0])
			prog = prog[1:]
			return v
		}
		for len(prog) > 0 {
			switch next() % 7 {
			case 0, 1: // write, maybe synced
				sync := next()%2 == 1
				off, n := next()*3, next()%40
				data := make([]byte, n)
				for i := range data {
					data[i] = byte(next())
				}
				opts := simrt.WriteOptions(0)
				if sync {
					opts = simrt.WriteSync
				}
				if err := b.WriteAt(uint64(off), opts, data[:n/2], data[n/2:]); err != nil {
					t.Fatalf("write: %v", err)
				}
				m.write(off, data, sync)
			case 2: // read
				off, n := next()*3, next()%50
				p := make([]byte, n)
				err := b.ReadAt(p, uint64(off))
				if off+n > len(m.live) && n > 0 {
					if !errors.Is(err, simrt.ErrBlobInsufficientLength) {
						t.Fatalf("read past the end [%d,%d) of %d: %v", off, off+n, len(m.live), err)
					}
				} else if n == 0 {
					if err != nil {
						t.Fatalf("empty read at %d: %v", off, err)
					}
				} else if err != nil || !bytes.Equal(p, m.live[off:off+n]) {
					t.Fatalf("read [%d,%d): %q %v, want %q", off, off+n, p, err, m.live[off:off+n])
				}
			case 3: // resize
				n := next() * 2
				if err := b.Resize(uint64(n)); err != nil {
					t.Fatal(err)
				}
				m.resize(n)
			case 4: // sync
				if err := b.Sync(); err != nil {
					t.Fatal(err)
				}
				m.durable = append([]byte(nil), m.live...)
			case 5: // reopen: the new handle sees durable state
				if err := b.Close(); err != nil {
					t.Fatal(err)
				}
				var size uint64
				if b, size, err = s.Open("p", []byte("b")); err != nil {
					t.Fatal(err)
				}
				if size != uint64(len(m.durable)) {
					t.Fatalf("reopened size %d, want %d", size, len(m.durable))
				}
				m.live = append([]byte(nil), m.durable...)
			case 6: // durable contents
				got, ok := s.LogicalBlob("p", []byte("b"))
				if !ok || !bytes.Equal(got, m.durable) {
					t.Fatalf("durable %q, want %q", got, m.durable)
				}
			}
		}
	})
}
