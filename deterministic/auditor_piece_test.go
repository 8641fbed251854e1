package deterministic

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"testing"

	"github.com/simrt/simrt/telemetry/audit"
)

// encodeEvent appends the auditor's encoding of one event: its field
// count, its label and its fields, each prefixed with its length.
func encodeEvent(b []byte, label string, fields ...[]byte) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(fields)))
	b = binary.BigEndian.AppendUint64(b, uint64(len(label)))
	b = append(b, label...)
	for _, f := range fields {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

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

		want := encodeEvent(nil, "write", first, second)
		if got, w := a.state(), crc32.Checksum(want, castagnoli); got != w {
			t.Fatalf("field of %d bytes: state %08x, want %08x", n, got, w)
		}
	}
}

// TestAuditorStateIsTheStreamCRC records events of every size the auditor
// treats differently (small ones gathered across flushes, fields that
// straddle a flush, fields larger than a piece) through every entry point,
// and checks after each event that the state is the CRC-32C of all the
// events' encoding so far, however much of it is still unhashed; that a
// snapshot taken mid-buffer has that state and stays apart from the
// original; and that with the event log on, each logged State is the
// state after its event and the final state is the same as without it.
func TestAuditorStateIsTheStreamCRC(t *testing.T) {
	sizes := []int{0, 1, 8, 36, 500, 1000, 1100, 4090, 4096, 5000, 20_000}
	type step struct {
		label  string
		fields [][]byte
	}
	var steps []step
	for i := range 300 {
		f := make([]byte, sizes[i%len(sizes)])
		for j := range f {
			f[j] = byte(i + j*13)
		}
		steps = append(steps, step{"e", [][]byte{f, []byte("tail")}})
	}
	record := func(a *Auditor, i int, s step) {
		switch i % 4 {
		case 0:
			a.Event(audit.Label(s.label), s.fields...)
		case 1: // the same event, its first field in chunks
			f := s.fields[0]
			a.EventChunks(audit.Label(s.label), nil, [][]byte{f[:len(f)/2], f[len(f)/2:]})
		case 2:
			a.processTask(uint64(i), "node.listener")
		case 3:
			a.spawn(uint64(i), "node.reader")
		}
	}
	expect := func(b []byte, i int, s step) []byte {
		var id [8]byte
		binary.BigEndian.PutUint64(id[:], uint64(i))
		switch i % 4 {
		case 0:
			return encodeEvent(b, s.label, s.fields...)
		case 1:
			return encodeEvent(b, s.label, s.fields[0])
		case 2:
			return encodeEvent(b, string(audit.ProcessTask), id[:], []byte("node.listener"))
		default:
			return encodeEvent(b, string(audit.Spawn), id[:], []byte("node.reader"))
		}
	}

	plain, logged := NewAuditor(), NewAuditor()
	logged.log = &EventLog{Limit: -1}
	var stream []byte
	var snap *Auditor
	var snapState uint32
	for i, s := range steps {
		record(plain, i, s)
		record(logged, i, s)
		stream = expect(stream, i, s)
		want := crc32.Checksum(stream, castagnoli)
		if got := plain.state(); got != want {
			t.Fatalf("event %d (%d bytes hashed so far, %d buffered): state %08x, want %08x", i, len(stream), len(plain.buf), got, want)
		}
		if snap == nil && len(plain.buf) > 0 && i > 20 {
			snap, snapState = plain.snapshot(), want
		}
	}
	if snap == nil {
		t.Fatal("no event left bytes buffered: the test no longer covers the buffer")
	}
	if got := snap.state(); got != snapState {
		t.Fatalf("snapshot moved from %08x to %08x while the original went on", snapState, got)
	}
	snap.Event("after")
	if want := crc32.Checksum(stream, castagnoli); plain.state() != want {
		t.Fatal("an event on the snapshot moved the original")
	}
	if logged.State() != plain.State() {
		t.Fatalf("with the event log %s, without %s", logged.State(), plain.State())
	}
	events := logged.log.Events()
	if len(events) != len(steps) {
		t.Fatalf("logged %d events, want %d", len(events), len(steps))
	}
	stream = stream[:0]
	for i, s := range steps {
		stream = expect(stream, i, s)
		var d [4]byte
		binary.BigEndian.PutUint32(d[:], crc32.Checksum(stream, castagnoli))
		if got, want := events[i].State, hex.EncodeToString(d[:]); got != want {
			t.Fatalf("logged event %d: State %s, want %s", i, got, want)
		}
	}
}
