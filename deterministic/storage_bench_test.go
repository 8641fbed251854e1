package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage/faulty"
)

// quiet configures every fault with a rate so small it never fires: the
// fault layer draws for every operation but injects nothing.
var quiet = faulty.Config{
	OpenRate: 1e-15, ReadRate: 1e-15, SyncRate: 1e-15, RemoveRate: 1e-15, ScanRate: 1e-15,
	Write:  faulty.WriteConfig{FailureRate: 1e-15},
	Resize: faulty.ResizeConfig{FailureRate: 1e-15},
}

// window bounds the blob a benchmark writes to, so memory stays small:
// writes wrap around within it.
const window = 64 << 20

func benchStack(b *testing.B, faults faulty.Config, f func(ctx *deterministic.Context, blob simrt.Blob)) {
	b.Helper()
	b.ReportAllocs()
	start(b, deterministic.New(deterministic.Config{StorageFaults: faults}), func(ctx *deterministic.Context) {
		blob, _, err := ctx.Open("bench", []byte("blob"))
		must(b, err)
		b.ResetTimer()
		f(ctx, blob)
		b.StopTimer()
		must(b, blob.Close())
	})
}

func sizes(b *testing.B, f func(b *testing.B, size int)) {
	for _, s := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}} {
		b.Run(s.name, func(b *testing.B) { f(b, s.n) })
	}
}

func benchWrite(b *testing.B, faults faulty.Config) {
	sizes(b, func(b *testing.B, size int) {
		data := make([]byte, size)
		b.SetBytes(int64(size))
		benchStack(b, faults, func(_ *deterministic.Context, blob simrt.Blob) {
			b.StopTimer()
			must(b, blob.Resize(window)) // steady state: no growth inside the loop
			b.StartTimer()
			for i := 0; i < b.N; i++ {
				must(b, blob.WriteAt(uint64(i*size%window), 0, data))
			}
		})
	})
}

// BenchmarkStorageWrite is sequential writes through metered → audited →
// faulty → memory with faults off.
func BenchmarkStorageWrite(b *testing.B) { benchWrite(b, faulty.Config{}) }

// BenchmarkStorageWriteFaultsQuiet is BenchmarkStorageWrite with every
// fault configured but never firing.
func BenchmarkStorageWriteFaultsQuiet(b *testing.B) { benchWrite(b, quiet) }

func BenchmarkStorageRead(b *testing.B) {
	sizes(b, func(b *testing.B, size int) {
		p := make([]byte, size)
		b.SetBytes(int64(size))
		benchStack(b, faulty.Config{}, func(_ *deterministic.Context, blob simrt.Blob) {
			b.StopTimer()
			must(b, blob.WriteAt(0, 0, make([]byte, 16*size)))
			b.StartTimer()
			for i := 0; i < b.N; i++ {
				must(b, blob.ReadAt(p, uint64(i%16*size)))
			}
		})
	})
}

// BenchmarkStorageSync is a 4 KiB write then Sync, on a 1 MiB blob.
func BenchmarkStorageSync(b *testing.B) {
	data := make([]byte, 4<<10)
	benchStack(b, faulty.Config{}, func(_ *deterministic.Context, blob simrt.Blob) {
		b.StopTimer()
		must(b, blob.WriteAt(0, 0, make([]byte, 1<<20)))
		b.StartTimer()
		for i := 0; i < b.N; i++ {
			must(b, blob.WriteAt(uint64(i%256*len(data)), 0, data))
			must(b, blob.Sync())
		}
	})
}

func BenchmarkStorageOpenClose(b *testing.B) {
	benchStack(b, faulty.Config{}, func(ctx *deterministic.Context, _ simrt.Blob) {
		name := []byte("other")
		for i := 0; i < b.N; i++ {
			blob, _, err := ctx.Open("bench", name)
			must(b, err)
			must(b, blob.Close())
		}
	})
}
