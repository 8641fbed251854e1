package deterministic_test

import (
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/storage"
	"github.com/simrt/simrt/storage/memory"
)

// blobSpec is one durable blob: its partition, name and logical contents.
type blobSpec struct{ partition, name, data string }

// digestOf returns the storage digest of a run that durably writes blobs.
func digestOf(t *testing.T, blobs ...blobSpec) memory.Digest {
	t.Helper()
	var d memory.Digest
	start(t, deterministic.New(deterministic.Config{}), func(ctx *deterministic.Context) {
		for _, s := range blobs {
			b, _ := open(t, ctx, s.partition, s.name)
			must(t, b.WriteAt(0, simrt.WriteSync, []byte(s.data)))
			must(t, b.Close())
		}
		d = ctx.StorageAudit()
	})
	return d
}

// TestStorageDigestSeparatesFields: each field of the storage digest is
// hashed with its length, so bytes moved from one field to the next change
// the digest even where the plain concatenations of fields and tags are
// equal. Without the length prefixes each pair below would collide.
func TestStorageDigestSeparatesFields(t *testing.T) {
	header := string(storage.NewHeader(0))
	for _, tc := range []struct {
		name string
		a, b []blobSpec
	}{
		{
			// "partition" "ablob" "blob" "c" = "partition" "a" "blob" "blobc"
			"partition and name",
			[]blobSpec{{"ablob", "c", "x"}},
			[]blobSpec{{"a", "blobc", "x"}},
		},
		{
			// blob a's content swallows the tags and fields of blob b.
			"content and the next blob",
			[]blobSpec{{"p", "a", "Q"}, {"p", "b", ""}},
			[]blobSpec{{"p", "a", "Q" + "blob" + "b" + "content" + header}},
		},
		{
			"a partition boundary",
			[]blobSpec{{"a", "bc", "x"}},
			[]blobSpec{{"ab", "c", "x"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			da, db := digestOf(t, tc.a...), digestOf(t, tc.b...)
			if da == db {
				t.Fatalf("two different storages have one digest %s", da)
			}
			if again := digestOf(t, tc.a...); again != da {
				t.Fatalf("one storage, two digests: %s, %s", da, again)
			}
		})
	}
}
