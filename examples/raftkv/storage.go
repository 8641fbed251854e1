package main

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"

	"github.com/simrt/simrt"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
)

// The write-ahead log of one node is a single blob of records, appended in
// order and synced before the node acts on them:
//
//	record  = length u32 | crc32c(payload) u32 | payload
//	payload = 'E' term u64 | index u64 | type u8 | data   (one log entry)
//	        | 'H' term u64 | vote u64 | commit u64        (the hard state)
//
// Replay appends the entries in order (a later entry at an index truncates
// the log there, as raft's own append does) and keeps the last hard state.
// It stops at the first record that is short or fails its checksum: a torn
// or lost unsynced write at a crash. The blob is cut back to the last good
// record, so that new records follow it.
const (
	walPartition = "raftkv"
	recEntry     = 'E'
	recHardState = 'H'
	recHeader    = 8
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var errBlobBusy = errors.New("raftkv: wal still open by the previous incarnation")

// wal is one node's write-ahead log.
type wal struct {
	blob     simrt.Blob
	size     uint64 // where the next record goes
	unsynced bool   // records before size may not be durable
	buf      []byte
}

// walName is the blob name of node id's log.
func walName(id uint64) []byte { return []byte("wal-" + strconv.FormatUint(id, 10)) }

// openWAL opens node id's log and replays it into a new MemoryStorage. It
// returns the storage and the recovered hard state (nil if none).
func openWAL(st simrt.Storage, id uint64) (*wal, *raft.MemoryStorage, *pb.HardState, error) {
	blob, size, err := st.Open(walPartition, walName(id))
	if err != nil {
		if errors.Is(err, simrt.ErrBlobAlreadyOpen) {
			return nil, nil, nil, errBlobBusy
		}
		return nil, nil, nil, err
	}
	data := make([]byte, size)
	if err := blob.ReadAt(data, 0); err != nil {
		blob.Close()
		return nil, nil, nil, err
	}
	ms := raft.NewMemoryStorage()
	var hs *pb.HardState
	good := uint64(0)
	for rest := data; len(rest) >= recHeader; {
		n := binary.BigEndian.Uint32(rest)
		if n == 0 || uint64(n) > uint64(len(rest)-recHeader) {
			break
		}
		payload := rest[recHeader : recHeader+n]
		if crc32.Checksum(payload, crcTable) != binary.BigEndian.Uint32(rest[4:]) {
			break
		}
		switch {
		case payload[0] == recEntry && len(payload) >= 18:
			e := &pb.Entry{
				Term:  new(binary.BigEndian.Uint64(payload[1:])),
				Index: new(binary.BigEndian.Uint64(payload[9:])),
				Type:  pb.EntryType(payload[17]).Enum(),
				Data:  append([]byte(nil), payload[18:]...),
			}
			if err := ms.Append([]*pb.Entry{e}); err != nil {
				blob.Close()
				return nil, nil, nil, err
			}
		case payload[0] == recHardState && len(payload) == 25:
			hs = &pb.HardState{
				Term:   new(binary.BigEndian.Uint64(payload[1:])),
				Vote:   new(binary.BigEndian.Uint64(payload[9:])),
				Commit: new(binary.BigEndian.Uint64(payload[17:])),
			}
		}
		good += uint64(recHeader) + uint64(n)
		rest = rest[recHeader+n:]
	}
	if hs != nil {
		if err := ms.SetHardState(hs); err != nil {
			blob.Close()
			return nil, nil, nil, err
		}
	}
	w := &wal{blob: blob, size: good}
	if good < size {
		if err := blob.Resize(good); err != nil {
			blob.Close()
			return nil, nil, nil, err
		}
		if err := blob.Sync(); err != nil {
			blob.Close()
			return nil, nil, nil, err
		}
	}
	return w, ms, hs, nil
}

// append writes the entries and, if hs is not nil, the hard state after
// them; with sync, they are durable when it returns.
func (w *wal) append(ents []*pb.Entry, hs *pb.HardState, sync bool) error {
	b := w.buf[:0]
	for _, e := range ents {
		b = appendRecord(b, func(p []byte) []byte {
			p = append(p, recEntry)
			p = binary.BigEndian.AppendUint64(p, e.GetTerm())
			p = binary.BigEndian.AppendUint64(p, e.GetIndex())
			p = append(p, byte(e.GetType()))
			return append(p, e.GetData()...)
		})
	}
	if hs != nil {
		b = appendRecord(b, func(p []byte) []byte {
			p = append(p, recHardState)
			p = binary.BigEndian.AppendUint64(p, hs.GetTerm())
			p = binary.BigEndian.AppendUint64(p, hs.GetVote())
			return binary.BigEndian.AppendUint64(p, hs.GetCommit())
		})
	}
	w.buf = b
	if len(b) == 0 {
		return nil
	}
	// A WriteSync write makes only its own bytes durable, not earlier
	// unsynced records: a crash would leave a hole before it, and replay
	// stops at the hole. After an unsynced record, sync the whole blob.
	var opts simrt.WriteOptions
	if sync && !w.unsynced {
		opts = simrt.WriteSync
	}
	if err := w.blob.WriteAt(w.size, opts, b); err != nil {
		return err
	}
	w.size += uint64(len(b))
	switch {
	case !sync:
		w.unsynced = true
	case w.unsynced:
		if err := w.blob.Sync(); err != nil {
			return err
		}
		w.unsynced = false
	}
	return nil
}

// appendRecord appends one record whose payload body writes.
func appendRecord(b []byte, body func([]byte) []byte) []byte {
	start := len(b)
	b = append(b, make([]byte, recHeader)...)
	b = body(b)
	payload := b[start+recHeader:]
	binary.BigEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// sync makes every record written so far durable.
func (w *wal) sync() error {
	if err := w.blob.Sync(); err != nil {
		return err
	}
	w.unsynced = false
	return nil
}

func (w *wal) close() { w.blob.Close() }
