package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/simrt/simrt"
)

// The durable state of a node is its grow-only counter: one count per node
// of the cluster (a G-counter), the node's own count being the bumps it
// acknowledged. It lives in one blob with two slots, written in turn, each
// synced, so a torn or lost write leaves the other slot whole:
//
//	slot = seq u64 | n u32 | count u64 × n | crc32c(seq..counts) u32
//
// Open reads both and keeps the valid slot with the higher seq.
const (
	statePartition = "counter"
	stateName      = "state"
	slotSize       = 512
)

var (
	crcTable = crc32.MakeTable(crc32.Castagnoli)
	// errCorrupt says that neither slot of the state blob is valid although
	// the blob is not empty: the disk lost data it had acknowledged.
	errCorrupt = errors.New("cluster: state blob has no valid slot")
)

// state is a node's counter and the blob that keeps it.
type state struct {
	blob   simrt.Blob
	seq    uint64   // seq of the last slot written
	counts []uint64 // by node index
}

// openState opens the state of a cluster of n nodes, empty if new.
func openState(st simrt.Storage, n int) (*state, error) {
	if n > (slotSize-16)/8 {
		return nil, fmt.Errorf("cluster: %d nodes do not fit a state slot", n)
	}
	blob, size, err := st.Open(statePartition, []byte(stateName))
	if err != nil {
		return nil, err
	}
	s := &state{blob: blob, counts: make([]uint64, n)}
	if size == 0 {
		return s, nil
	}
	buf := make([]byte, min(size, 2*slotSize))
	if err := blob.ReadAt(buf, 0); err != nil {
		blob.Close()
		return nil, err
	}
	found := false
	// A slot is as long as its record, not slotSize: the blob ends where
	// the last record written to the second slot ends.
	for off := 0; off+slotLen(n) <= len(buf); off += slotSize {
		seq, counts, ok := decodeSlot(buf[off:off+slotLen(n)], n)
		if ok && (!found || seq > s.seq) {
			s.seq, s.counts, found = seq, counts, true
		}
	}
	if !found {
		blob.Close()
		return nil, errCorrupt
	}
	return s, nil
}

// slotLen is the length of a slot's record for n nodes.
func slotLen(n int) int { return 16 + 8*n }

func decodeSlot(b []byte, n int) (uint64, []uint64, bool) {
	if binary.BigEndian.Uint32(b[8:]) != uint32(n) {
		return 0, nil, false
	}
	end := 12 + 8*n
	if crc32.Checksum(b[:end], crcTable) != binary.BigEndian.Uint32(b[end:]) {
		return 0, nil, false
	}
	counts := make([]uint64, n)
	for i := range counts {
		counts[i] = binary.BigEndian.Uint64(b[12+8*i:])
	}
	return binary.BigEndian.Uint64(b), counts, true
}

// save makes counts durable, in the slot the last save did not use.
func (s *state) save(counts []uint64) error {
	seq := s.seq + 1
	b := binary.BigEndian.AppendUint64(make([]byte, 0, slotSize), seq)
	b = binary.BigEndian.AppendUint32(b, uint32(len(counts)))
	for _, c := range counts {
		b = binary.BigEndian.AppendUint64(b, c)
	}
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	if err := s.blob.WriteAt((seq%2)*slotSize, simrt.WriteSync, b); err != nil {
		return err
	}
	s.seq = seq
	copy(s.counts, counts)
	return nil
}

// total is the counter's value: the sum of every node's count.
func total(counts []uint64) uint64 {
	var t uint64
	for _, c := range counts {
		t += c
	}
	return t
}

func (s *state) close() { s.blob.Close() }
