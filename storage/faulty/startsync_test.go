package faulty_test

import (
	"math/rand/v2"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
	"github.com/simrt/simrt/storage/faulty"
	"github.com/simrt/simrt/storage/memory"
)

// slow is a memory store whose StartSync completes only when the test says
// so, like a disk whose fdatasync is still running.
type slow struct {
	*memory.Storage
	pending []func()
}

func (s *slow) Open(partition string, name []byte) (simrt.Blob, uint64, error) {
	b, n, err := s.Storage.Open(partition, name)
	if err != nil {
		return nil, 0, err
	}
	return &slowBlob{Blob: b, s: s}, n, nil
}

func (s *slow) OpenVersioned(partition string, name []byte, v simrt.VersionRange) (simrt.Blob, uint64, uint16, error) {
	b, n, ver, err := s.Storage.OpenVersioned(partition, name, v)
	if err != nil {
		return nil, 0, 0, err
	}
	return &slowBlob{Blob: b, s: s}, n, ver, nil
}

// finish completes every StartSync issued so far.
func (s *slow) finish() {
	for _, f := range s.pending {
		f()
	}
	s.pending = nil
}

type slowBlob struct {
	simrt.Blob
	s *slow
}

func (b *slowBlob) StartSync() *simrt.Handle[struct{}] {
	h, done := storage.NewCompletion[struct{}]()
	b.s.pending = append(b.s.pending, func() { done(struct{}{}, b.Blob.Sync()) })
	return h
}

func (b *slowBlob) RetainWrite(off uint64, data []byte, keep []bool) {
	b.Blob.(faulty.Retainer).RetainWrite(off, data, keep)
}

func (b *slowBlob) RetainResize(size uint64) { b.Blob.(faulty.Retainer).RetainResize(size) }

// TestStartSyncMarker: a StartSync clears the older journal only once its
// handle has completed successfully, awaited or not.
func TestStartSyncMarker(t *testing.T) {
	for _, tc := range []struct {
		name     string
		complete bool
		want     string
	}{
		// The sync made "BBAAA" durable; replaying the older journaled
		// "AAAAA" over it would be wrong.
		{"completed, never awaited", true, "BBAAA"},
		// The sync never happened: the journal is all there is.
		{"still running at the crash", false, "AAAAA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.New()
			s := &slow{Storage: mem}
			fs := faulty.New(s, rand.New(rand.NewPCG(1, 1)), faulty.Config{Write: faulty.WriteConfig{RetentionRate: 1}})
			b, _, err := fs.Open("p", []byte("a"))
			if err != nil {
				t.Fatal(err)
			}
			if err := b.WriteAt(0, 0, []byte("AAAAA")); err != nil {
				t.Fatal(err)
			}
			fs.Config().Write.RetentionRate = 0
			if err := b.WriteAt(0, 0, []byte("BB")); err != nil {
				t.Fatal(err)
			}
			h := b.StartSync()
			if h.Done() {
				t.Fatal("StartSync waited for the backing sync")
			}
			if tc.complete {
				s.finish()
			}
			if err := fs.Crash(); err != nil {
				t.Fatal(err)
			}
			got, _ := mem.LogicalBlob("p", []byte("a"))
			if string(got) != tc.want {
				t.Fatalf("after crash %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStartSyncMarkerCompaction: completed markers do not pile up.
func TestStartSyncMarkerCompaction(t *testing.T) {
	s := &slow{Storage: memory.New()}
	fs := faulty.New(s, rand.New(rand.NewPCG(1, 1)), faulty.Config{})
	b, _, _ := fs.Open("p", []byte("a"))
	for range 100 {
		b.StartSync()
		s.finish()
	}
	if n := fs.Pending(); n > 1 {
		t.Fatalf("%d journal entries after 100 completed StartSyncs", n)
	}
}
