package storage_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/storage"
)

var any16 = simrt.VersionRange{Min: 0, Max: 0xFFFF}

func TestNewHeaderFixture(t *testing.T) {
	h := storage.NewHeader(3)
	if len(h) != storage.HeaderSize || !bytes.Equal(h[:8], []byte{0x43, 0x57, 0x49, 0x4B, 0x00, 0x01, 0x00, 0x03}) {
		t.Fatalf("header starts % x", h[:12])
	}
	got, err := storage.Resolve(h, storage.HeaderSize+5, any16)
	if err != nil || got.Fresh || got.Version != 3 || got.DataOffset != storage.HeaderSize || got.Size != 5 {
		t.Fatalf("Resolve(NewHeader(3)) = %+v, %v", got, err)
	}
}

func withZeros(b []byte, n int) []byte {
	return append(append([]byte(nil), b...), make([]byte, n-len(b))...)
}

func TestResolve(t *testing.T) {
	valid := storage.NewHeader(1)
	badCRC := append([]byte(nil), valid...)
	badCRC[9] ^= 1
	badPad := append([]byte(nil), valid...)
	badPad[100] = 1
	zeroLayer := append([]byte(nil), valid...)
	zeroLayer[5] = 0
	for _, tc := range []struct {
		name   string
		raw    []byte
		fresh  bool
		reason string // "" for success
	}{
		{"empty", nil, true, ""},
		{"sub-prelude garbage", []byte{1, 2, 3, 4, 5, 6, 7}, false, "truncated header: required length 8, raw length 7"},
		{"foreign short file", []byte("hi\n"), false, "truncated header: required length 8, raw length 3"},
		{"foreign byte after zeros", []byte{0, 0, 0, 'x'}, false, "truncated header: required length 8, raw length 4"},
		{"torn: short zeros", []byte{0, 0, 0}, true, ""},
		{"torn: short magic prefix", []byte{'C', 'W', 'I'}, true, ""},
		{"torn: short magic and layer", []byte{'C', 'W', 'I', 'K', 0, 1}, true, ""},
		{"short wrong layer", []byte{'C', 'W', 'I', 'K', 0, 2}, false, "truncated header: required length 8, raw length 6"},
		{"valid", valid, false, ""},
		{"valid with data", append(append([]byte(nil), valid...), 'x'), false, ""},
		{"legacy", []byte{'C', 'W', 'I', 'C', 0, 0, 0, 1, 'd'}, false, ""},
		{"legacy bad layer", []byte{'C', 'W', 'I', 'C', 0, 1, 0, 1}, false, "unsupported runtime version: expected 0, found 1"},
		{"unknown magic", []byte{'X', 'Y', 'Z', 'W', 0, 1, 0, 0, 9}, false, "invalid magic: found [88, 89, 90, 87]"},
		{"torn: zeros", make([]byte, 4096), true, ""},
		{"torn: prelude only", []byte{'C', 'W', 'I', 'K', 0, 1, 0, 9}, true, ""},
		{"torn: half magic", withZeros([]byte{'C', 'W'}, 300), true, ""},
		{"torn: crc prefix", withZeros(valid[:10], 4000), true, ""},
		{"torn: crc whole, short", withZeros(valid[:12], 4000), true, ""},
		{"bad crc short", withZeros(badCRC[:12], 4000), false, "invalid header checksum"},
		{"bad crc full", badCRC, false, "invalid header checksum"},
		{"bad crc with data never heals", append(withZeros(badCRC[:8], 4096), 'd'), false, "invalid header checksum"},
		{"zeroed crc with zero payload past header", withZeros(valid[:8], 4097), false, "invalid header checksum"},
		{"bad padding", badPad, false, "invalid header padding"},
		{"zeroed runtime version", zeroLayer, false, "unsupported runtime version: expected 1, found 0"},
		{"truncated at 10", valid[:10], true, ""}, // heals: canonical prefix
		{"truncated at 100 with garbage", append(append([]byte(nil), valid[:12]...), 7), false, "truncated header: required length 4096, raw length 13"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := storage.Resolve(tc.raw, uint64(len(tc.raw)), any16)
			if tc.reason != "" {
				var he *storage.HeaderError
				if !errors.As(err, &he) || he.Error() != tc.reason {
					t.Fatalf("got %+v, %v; want error %q", h, err, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if h.Fresh != tc.fresh {
				t.Fatalf("got %+v, want Fresh %v", h, tc.fresh)
			}
		})
	}
}

func TestResolveVersionMismatch(t *testing.T) {
	h := storage.NewHeader(1)
	_, err := storage.Resolve(h, storage.HeaderSize, simrt.VersionRange{Min: 2, Max: 3})
	var vm *simrt.VersionMismatchError
	if !errors.As(err, &vm) || vm.Found != 1 || err.Error() != "blob version mismatch: expected one of 2..=3, found 1" {
		t.Fatalf("got %v", err)
	}
	// A damaged header is reported as damage, not as a version mismatch.
	h[9] ^= 1
	if _, err := storage.Resolve(append(h, 'd'), storage.HeaderSize+1, simrt.VersionRange{Min: 2, Max: 3}); !errors.Is(err, simrt.ErrInvalidChecksum) {
		t.Fatalf("got %v, want a checksum error", err)
	}
}

func TestCheckPartition(t *testing.T) {
	for _, p := range []string{"partition", "my_partition", "my-partition", "partition123", "A1"} {
		if err := storage.CheckPartition(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, p := range []string{"my/partition", "my.partition", "my partition", "../escape", "", "é"} {
		if err := storage.CheckPartition(p); !errors.Is(err, simrt.ErrPartitionNameInvalid) {
			t.Errorf("%q: %v", p, err)
		}
	}
}

func TestParseHexName(t *testing.T) {
	for s, ok := range map[string]bool{"6162": true, "00": true, "ABCD": false, "abc": false, "": false, "zz": false} {
		if _, got := storage.ParseHexName(s); got != ok {
			t.Errorf("ParseHexName(%q) = %v, want %v", s, got, ok)
		}
	}
}

// FuzzResolve checks that Resolve never panics, and that it only asks to
// recreate blobs that hold no data: nothing longer than a header, nothing
// with a valid header.
func FuzzResolve(f *testing.F) {
	f.Add([]byte{}, uint16(0), uint16(0))
	f.Add(storage.NewHeader(3), uint16(0), uint16(5))
	f.Add([]byte{'C', 'W', 'I', 'C', 0, 0, 0, 1, 'x'}, uint16(1), uint16(1))
	f.Add([]byte{'C', 'W', 'I', 'K', 0, 1, 0, 9, 1, 2}, uint16(0), uint16(9))
	f.Add(append(storage.NewHeader(0), "data"...), uint16(1), uint16(1))
	f.Add(withZeros([]byte{'C', 'W'}, 300), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, raw []byte, lo, hi uint16) {
		versions := simrt.VersionRange{Min: lo, Max: hi}
		h, err := storage.Resolve(raw, uint64(len(raw)), versions)
		if err != nil {
			return
		}
		if h.Fresh {
			if len(raw) > storage.HeaderSize {
				t.Fatalf("asked to recreate a %d-byte blob", len(raw))
			}
			if h.Version != hi {
				t.Fatalf("fresh version %d, want %d", h.Version, hi)
			}
			return
		}
		if !versions.Contains(h.Version) || h.DataOffset+h.Size != uint64(len(raw)) {
			t.Fatalf("resolved %+v for %d bytes", h, len(raw))
		}
	})
}
