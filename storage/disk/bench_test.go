package disk_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage/disk"
)

const window = 64 << 20

func benchBlob(b *testing.B) (*disk.Storage, simrt.Blob) {
	b.Helper()
	b.ReportAllocs()
	s, err := disk.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	blob, _, err := s.Open("bench", []byte("blob"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { blob.Close() })
	return s, blob
}

func sizes(b *testing.B, f func(b *testing.B, size int)) {
	for _, s := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}} {
		b.Run(s.name, func(b *testing.B) { f(b, s.n) })
	}
}

func BenchmarkWrite(b *testing.B) {
	sizes(b, func(b *testing.B, size int) {
		_, blob := benchBlob(b)
		data := make([]byte, size)
		b.SetBytes(int64(size))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := blob.WriteAt(uint64(i*size%window), 0, data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	sizes(b, func(b *testing.B, size int) {
		_, blob := benchBlob(b)
		if err := blob.WriteAt(0, 0, make([]byte, 16*size)); err != nil {
			b.Fatal(err)
		}
		p := make([]byte, size)
		b.SetBytes(int64(size))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := blob.ReadAt(p, uint64(i%16*size)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSync is a 4 KiB write then fdatasync.
func BenchmarkSync(b *testing.B) {
	_, blob := benchBlob(b)
	data := make([]byte, 4<<10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := blob.WriteAt(uint64(i%256*len(data)), 0, data); err != nil {
			b.Fatal(err)
		}
		if err := blob.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenClose reopens an existing blob: no creation, no fsync.
func BenchmarkOpenClose(b *testing.B) {
	s, _ := benchBlob(b)
	name := []byte("other")
	blob, _, err := s.Open("bench", name)
	if err != nil {
		b.Fatal(err)
	}
	blob.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		blob, _, err := s.Open("bench", name)
		if err != nil {
			b.Fatal(err)
		}
		blob.Close()
	}
}
