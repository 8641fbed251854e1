package deterministic

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// TestAuditorFieldAfterFullBuffer records events whose small fields fill
// the hashing buffer to just under its 4096-byte piece, so that the next
// field's length prefix takes it past the piece: the event must hash (it
// used to panic with a negative slice bound) to the CRC-32C of the whole
// encoding, wherever the buffer is flushed.
func TestAuditorFieldAfterFullBuffer(t *testing.T) {
	for n := 4040; n < 4100; n++ {
		a := NewAuditor()
		first, second := make([]byte, n), []byte("after the boundary")
		for i := range first {
			first[i] = byte(i)
		}
		a.Event("write", first, second)

		var want []byte
		want = binary.BigEndian.AppendUint64(want, 4)
		want = binary.BigEndian.AppendUint32(want, 0)
		want = binary.BigEndian.AppendUint64(want, uint64(len("write")))
		want = append(want, "write"...)
		for _, f := range [][]byte{first, second} {
			want = binary.BigEndian.AppendUint64(want, uint64(len(f)))
			want = append(want, f...)
		}
		if got, w := a.digest, crc32.Checksum(want, castagnoli); got != w {
			t.Fatalf("field of %d bytes: digest %08x, want %08x", n, got, w)
		}
	}
}
