package main

import (
	"encoding/binary"
	"errors"

	pb "go.etcd.io/raft/v3/raftpb"
)

// The wire form of a raft message. raftpb's protobuf encoding works, but
// its decoder allocates every optional field on its own; this one decodes
// a message into two allocations plus one per entry. A message is
//
//	presence u16 | each present scalar, in field order, as a uvarint |
//	context (uvarint length, bytes) | entries (uvarint count, then each:
//	presence u8 | term, index, type as uvarints | data length, data)
//
// Snapshots and local storage messages never cross the network here (the
// log is never compacted), so they are not encoded.
const (
	fType = 1 << iota
	fTo
	fFrom
	fTerm
	fLogTerm
	fIndex
	fCommit
	fVote
	fReject
	fRejectHint
	fContext
	fEntries
)

var errBadMessage = errors.New("raftkv: malformed raft message")

// appendMessage appends the wire form of m to b. It panics on a message
// this transport does not carry (a snapshot or storage responses).
func appendMessage(b []byte, m *pb.Message) []byte {
	if m.Snapshot != nil && (len(m.Snapshot.Data) > 0 || m.Snapshot.Metadata != nil) || len(m.Responses) > 0 {
		panic("raftkv: cannot encode a snapshot or a local storage message")
	}
	var bits uint16
	set := func(present bool, bit uint16) {
		if present {
			bits |= bit
		}
	}
	set(m.Type != nil, fType)
	set(m.To != nil, fTo)
	set(m.From != nil, fFrom)
	set(m.Term != nil, fTerm)
	set(m.LogTerm != nil, fLogTerm)
	set(m.Index != nil, fIndex)
	set(m.Commit != nil, fCommit)
	set(m.Vote != nil, fVote)
	set(m.GetReject(), fReject)
	set(m.RejectHint != nil, fRejectHint)
	set(m.Context != nil, fContext)
	set(len(m.Entries) > 0, fEntries)
	b = binary.BigEndian.AppendUint16(b, bits)
	for _, p := range []*uint64{m.To, m.From, m.Term, m.LogTerm, m.Index, m.Commit, m.Vote, m.RejectHint} {
		if p != nil {
			b = binary.AppendUvarint(b, *p)
		}
	}
	if m.Type != nil {
		b = binary.AppendUvarint(b, uint64(*m.Type))
	}
	if m.Context != nil {
		b = binary.AppendUvarint(b, uint64(len(m.Context)))
		b = append(b, m.Context...)
	}
	if len(m.Entries) > 0 {
		b = binary.AppendUvarint(b, uint64(len(m.Entries)))
		for _, e := range m.Entries {
			var eb byte
			if e.Term != nil {
				eb |= 1
			}
			if e.Index != nil {
				eb |= 2
			}
			if e.Type != nil {
				eb |= 4
			}
			if e.Data != nil {
				eb |= 8
			}
			b = append(b, eb)
			for _, p := range []*uint64{e.Term, e.Index} {
				if p != nil {
					b = binary.AppendUvarint(b, *p)
				}
			}
			if e.Type != nil {
				b = binary.AppendUvarint(b, uint64(*e.Type))
			}
			if e.Data != nil {
				b = binary.AppendUvarint(b, uint64(len(e.Data)))
				b = append(b, e.Data...)
			}
		}
	}
	return b
}

// messageBox holds a decoded message and the values its optional fields
// point to, so that decoding allocates them together.
type messageBox struct {
	m                                                        pb.Message
	to, from, term, logTerm, index, commit, vote, rejectHint uint64
	typ                                                      pb.MessageType
	reject                                                   bool
}

// entryBox holds a decoded entry and its field values.
type entryBox struct {
	e           pb.Entry
	term, index uint64
	typ         pb.EntryType
}

// messageBoxes hands out message boxes carved from slabs, so that decoding
// a stream of messages costs one allocation per boxSlab messages instead of
// one per message. A box is never reused (raft may keep pointers into a
// message it was given, for as long as it likes): a slab is freed when none
// of its boxes is referenced any more. The zero value is ready to use.
type messageBoxes struct{ slab []messageBox }

// boxSlab is how many boxes messageBoxes allocates at once (2.1 KB).
const boxSlab = 8

func (a *messageBoxes) next() *messageBox {
	if a == nil {
		return new(messageBox)
	}
	if len(a.slab) == 0 {
		a.slab = make([]messageBox, boxSlab)
	}
	box := &a.slab[0]
	a.slab = a.slab[1:]
	return box
}

// decodeMessage decodes what appendMessage wrote. The entries' data and
// the context alias b, which must not be modified afterwards.
func decodeMessage(b []byte) (*pb.Message, error) { return decodeMessageFrom(b, nil) }

// decodeMessageFrom is decodeMessage with the message's box taken from
// boxes (nil: a box of its own).
func decodeMessageFrom(b []byte, boxes *messageBoxes) (*pb.Message, error) {
	if len(b) < 2 {
		return nil, errBadMessage
	}
	bits := binary.BigEndian.Uint16(b)
	b = b[2:]
	box := boxes.next()
	m := &box.m
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	for _, f := range []struct {
		bit uint16
		dst *uint64
		ptr **uint64
	}{
		{fTo, &box.to, &m.To}, {fFrom, &box.from, &m.From}, {fTerm, &box.term, &m.Term},
		{fLogTerm, &box.logTerm, &m.LogTerm}, {fIndex, &box.index, &m.Index}, {fCommit, &box.commit, &m.Commit},
		{fVote, &box.vote, &m.Vote}, {fRejectHint, &box.rejectHint, &m.RejectHint},
	} {
		if bits&f.bit == 0 {
			continue
		}
		v, ok := uv()
		if !ok {
			return nil, errBadMessage
		}
		*f.dst, *f.ptr = v, f.dst
	}
	if bits&fType != 0 {
		v, ok := uv()
		if !ok {
			return nil, errBadMessage
		}
		box.typ = pb.MessageType(v)
		m.Type = &box.typ
	}
	if bits&fReject != 0 {
		box.reject = true
		m.Reject = &box.reject
	}
	bytesField := func() ([]byte, bool) {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return nil, false
		}
		v := b[:n:n]
		b = b[n:]
		return v, true
	}
	if bits&fContext != 0 {
		v, ok := bytesField()
		if !ok {
			return nil, errBadMessage
		}
		m.Context = v
	}
	if bits&fEntries != 0 {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return nil, errBadMessage
		}
		boxes := make([]entryBox, n)
		m.Entries = make([]*pb.Entry, n)
		for i := range boxes {
			eb := &boxes[i]
			if len(b) == 0 {
				return nil, errBadMessage
			}
			pres := b[0]
			b = b[1:]
			for j, p := range []struct {
				dst *uint64
				ptr **uint64
			}{{&eb.term, &eb.e.Term}, {&eb.index, &eb.e.Index}} {
				if pres&(1<<j) == 0 {
					continue
				}
				v, ok := uv()
				if !ok {
					return nil, errBadMessage
				}
				*p.dst, *p.ptr = v, p.dst
			}
			if pres&4 != 0 {
				v, ok := uv()
				if !ok {
					return nil, errBadMessage
				}
				eb.typ = pb.EntryType(v)
				eb.e.Type = &eb.typ
			}
			if pres&8 != 0 {
				v, ok := bytesField()
				if !ok {
					return nil, errBadMessage
				}
				eb.e.Data = v
			}
			m.Entries[i] = &eb.e
		}
	}
	if len(b) != 0 {
		return nil, errBadMessage
	}
	return m, nil
}
