package storagetest

import (
	"bytes"
	"errors"

	"github.com/simrt/simrt"
)

func open(t T, s simrt.Storage, partition, name string) (simrt.Blob, uint64) {
	t.Helper()
	b, n, err := s.Open(partition, []byte(name))
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", partition, name, err)
	}
	return b, n
}

func write(t T, b simrt.Blob, offset uint64, opts simrt.WriteOptions, bufs ...[]byte) {
	t.Helper()
	if err := b.WriteAt(offset, opts, bufs...); err != nil {
		t.Fatalf("WriteAt(%d): %v", offset, err)
	}
}

func read(t T, b simrt.Blob, offset uint64, n int) []byte {
	t.Helper()
	p := make([]byte, n)
	if err := b.ReadAt(p, offset); err != nil {
		t.Fatalf("ReadAt(%d, %d): %v", offset, n, err)
	}
	return p
}

func expectRead(t T, b simrt.Blob, offset uint64, want []byte, why string) {
	t.Helper()
	if got := read(t, b, offset, len(want)); !bytes.Equal(got, want) {
		t.Fatalf("%s: ReadAt(%d) = %q, want %q", why, offset, trunc(got), trunc(want))
	}
}

func expectReadFails(t T, b simrt.Blob, offset uint64, n int, why string) {
	t.Helper()
	if err := b.ReadAt(make([]byte, n), offset); err == nil {
		t.Fatalf("%s: ReadAt(%d, %d) succeeded, want an error", why, offset, n)
	}
}

func sync(t T, b simrt.Blob) {
	t.Helper()
	if err := b.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
}

func closeBlob(t T, b simrt.Blob) {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func expectSize(t T, got, want uint64, why string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: size %d, want %d", why, got, want)
	}
}

func expectIs(t T, err, target error, why string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want one matching %v", why, err, target)
	}
}

func scan(t T, s simrt.Storage, partition string) [][]byte {
	t.Helper()
	names, err := s.Scan(partition)
	if err != nil {
		t.Fatalf("Scan(%q): %v", partition, err)
	}
	return names
}

func pattern(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7) + seed
	}
	return p
}

func trunc(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}
