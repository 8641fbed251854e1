package deterministic

import (
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"time"

	"github.com/simrt/simrt/telemetry/audit"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Auditor fingerprints everything a simulation does that the outside could
// observe: task resumes, spawns, random draws, timers, metric registration,
// DNS, network and storage operations with their payloads. The state is the
// CRC-32C of every event so far, each encoded as its field count, its label
// and its fields, every one prefixed with its length, so field boundaries
// and event boundaries are both part of the fingerprint. Two runs with the
// same seed and program have the same State, and a different schedule
// almost surely does not.
//
// Events are gathered in a buffer and hashed in bulk (CRC-32C streams, so
// where the buffer is flushed does not change the state): one crc32.Update
// per kilobyte or so instead of one short, latency-bound call per event.
//
// An Auditor belongs to one runtime and is used only from its tasks.
type Auditor struct {
	digest uint32 // CRC-32C of every byte hashed so far
	buf    []byte // bytes of recorded events not hashed yet
	log    *EventLog
	where  func() (int64, string) // simulated time (ns since the epoch) and running task, for the log
}

// NewAuditor returns an auditor in its initial state ("00000000").
func NewAuditor() *Auditor { return &Auditor{buf: make([]byte, 0, auditorBuf)} }

// auditorBuf is the hashing buffer's first capacity: room for flushAt
// bytes and the usual event that takes them past it, so that a run's
// buffer is one allocation rather than a series of growths.
const auditorBuf = flushAt + 512

func appendString(b []byte, f string) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
	return append(b, f...)
}

// Event records one event: its label and fields. The state extends over
// the event's field count, its label and each field, every one prefixed
// with its length, so field boundaries and event boundaries are both part
// of the fingerprint. Fields are neither retained nor copied beyond the
// hashing buffer (large ones are hashed in pieces).
func (a *Auditor) Event(label audit.Label, fields ...[]byte) {
	b := a.begin(label, len(fields))
	crc := a.digest
	for _, f := range fields {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		if len(b)+len(f) <= hashPiece { // the usual small field, appended here
			b = append(b, f...)
			continue
		}
		b, crc = a.hashBytes(b, crc, f)
	}
	a.end(b, crc, label, fields)
}

// hashPiece is the most bytes an event gathers before hashing them.
const hashPiece = 4096

// flushAt is how many gathered bytes make the end of an event hash them:
// past 504 bytes crc32 takes its three-way interleaved path.
const flushAt = 1024

// hashBytes adds p to the event being hashed: small fields are gathered in
// b, large ones are hashed where they are. CRC-32C is streaming, so the
// result does not depend on where the buffer is flushed.
//
// Large fields go through b in pieces rather than straight to crc32.Update:
// crc32's assembly hides from escape analysis that the bytes are only read,
// so handing it a caller's slice would make every audited field (and the
// small arrays callers build fields in) escape to the heap.
func (a *Auditor) hashBytes(b []byte, crc uint32, p []byte) ([]byte, uint32) {
	for len(b)+len(p) > hashPiece {
		k := max(hashPiece-len(b), 0) // b may already be past a piece: a length prefix can take it there
		b = append(b, p[:k]...)
		crc = crc32.Update(crc, castagnoli, b)
		b, p = b[:0], p[k:]
	}
	return append(b, p...), crc
}

// end finishes an event whose bytes not yet hashed are b, on top of crc.
// With the event log on, every event is hashed at once so that the log
// can keep the state after it.
func (a *Auditor) end(b []byte, crc uint32, label audit.Label, fields [][]byte) {
	if a.log != nil {
		a.digest, a.buf = crc32.Update(crc, castagnoli, b), b[:0]
		a.log.add(a, label, fields)
		return
	}
	if len(b) >= flushAt {
		crc, b = crc32.Update(crc, castagnoli, b), b[:0]
	}
	a.digest, a.buf = crc, b
}

// EventChunks records an event whose single payload field is given in
// chunks; the chunk boundaries are not part of the fingerprint, so the
// same bytes sent in one piece or several audit the same.
func (a *Auditor) EventChunks(label audit.Label, prefix [][]byte, chunks [][]byte) {
	b := a.begin(label, len(prefix)+1)
	crc := a.digest
	for _, f := range prefix {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		if len(b)+len(f) <= hashPiece { // the usual small field, appended here
			b = append(b, f...)
			continue
		}
		b, crc = a.hashBytes(b, crc, f)
	}
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(n))
	for _, c := range chunks {
		if len(b)+len(c) <= hashPiece { // the usual small field, appended here
			b = append(b, c...)
			continue
		}
		b, crc = a.hashBytes(b, crc, c)
	}
	var logged [][]byte
	if a.log != nil {
		joined := make([]byte, 0, n)
		for _, c := range chunks {
			joined = append(joined, c...)
		}
		logged = append(append(logged, prefix...), joined)
	}
	a.end(b, crc, label, logged)
}

// begin appends an event's field count and label to the bytes not yet
// hashed.
func (a *Auditor) begin(label audit.Label, fields int) []byte {
	b := binary.BigEndian.AppendUint64(a.buf, uint64(fields))
	return appendString(b, string(label))
}

// processTask is Event(audit.ProcessTask, id, name) without the variadic
// slice.
func (a *Auditor) processTask(id uint64, name string) {
	b := a.begin(audit.ProcessTask, 2)
	b = binary.BigEndian.AppendUint64(b, 8)
	b = binary.BigEndian.AppendUint64(b, id)
	b = appendString(b, name)
	if a.log != nil {
		var idb [8]byte
		binary.BigEndian.PutUint64(idb[:], id)
		a.end(b, a.digest, audit.ProcessTask, [][]byte{idb[:], []byte(name)})
		return
	}
	if len(b) >= flushAt {
		a.digest, b = crc32.Update(a.digest, castagnoli, b), b[:0]
	}
	a.buf = b
}

// spawn is Event(audit.Spawn, id, name) without allocating.
func (a *Auditor) spawn(id uint64, name string) {
	if a.log != nil {
		var idb [8]byte
		binary.BigEndian.PutUint64(idb[:], id)
		a.Event(audit.Spawn, idb[:], []byte(name))
		return
	}
	b := a.begin(audit.Spawn, 2)
	b = binary.BigEndian.AppendUint64(b, 8)
	b = binary.BigEndian.AppendUint64(b, id)
	b = appendString(b, name)
	if len(b) >= flushAt {
		a.digest, b = crc32.Update(a.digest, castagnoli, b), b[:0]
	}
	a.buf = b
}

// state is the fingerprint: the CRC-32C of everything recorded, the bytes
// not hashed yet included.
func (a *Auditor) state() uint32 {
	if len(a.buf) == 0 {
		return a.digest
	}
	return crc32.Update(a.digest, castagnoli, a.buf)
}

// State returns the fingerprint as 8 lowercase hex characters. Reading it
// changes nothing.
func (a *Auditor) State() string {
	var d [4]byte
	binary.BigEndian.PutUint32(d[:], a.state())
	return hex.EncodeToString(d[:])
}

// snapshot returns a copy of a that shares nothing with it: the same state
// and a copy of its event log. Events recorded on either leave the other
// as it was.
func (a *Auditor) snapshot() *Auditor {
	s := &Auditor{digest: a.state(), buf: make([]byte, 0, auditorBuf)}
	if a.log != nil {
		l := *a.log
		l.entries = make([]logEntry, len(a.log.entries))
		for i, e := range a.log.entries {
			e.data = append([]byte(nil), e.data...)
			e.ends = append([]int(nil), e.ends...)
			l.entries[i] = e
		}
		s.log = &l
	}
	return s
}

// Log returns the event log, or nil when Config.Hooks.EventLog is zero.
func (a *Auditor) Log() *EventLog { return a.log }

// EventLog keeps audited events so that two runs of one seed can be compared
// event by event. It keeps the last Limit events, or all when Limit < 0.
// Recording reuses the storage of overwritten events and formats nothing,
// so a small ring is cheap enough to keep on in sweeps.
type EventLog struct {
	Limit   int
	next    uint64
	entries []logEntry // ring when Limit > 0
	start   int
}

type logEntry struct {
	index  uint64
	now    int64
	task   string
	label  audit.Label
	data   []byte // the fields, back to back
	ends   []int  // end offset of each field in data
	digest uint32
}

func (l *EventLog) add(a *Auditor, label audit.Label, fields [][]byte) {
	var e *logEntry
	if l.Limit > 0 && len(l.entries) == l.Limit {
		e = &l.entries[l.start]
		l.start = (l.start + 1) % l.Limit
	} else {
		l.entries = append(l.entries, logEntry{})
		e = &l.entries[len(l.entries)-1]
	}
	e.index, e.label, e.digest = l.next, label, a.digest
	e.now, e.task = 0, "<runtime>"
	if a.where != nil {
		e.now, e.task = a.where()
	}
	e.data, e.ends = e.data[:0], e.ends[:0]
	for _, f := range fields {
		e.data = append(e.data, f...)
		e.ends = append(e.ends, len(e.data))
	}
	l.next++
}

// Events returns the kept events, oldest first.
func (l *EventLog) Events() []audit.Event {
	if l == nil {
		return nil
	}
	out := make([]audit.Event, 0, len(l.entries))
	for i := range l.entries {
		e := &l.entries[(l.start+i)%len(l.entries)]
		fields := make([][]byte, len(e.ends))
		prev := 0
		for j, end := range e.ends {
			fields[j] = append([]byte(nil), e.data[prev:end]...)
			prev = end
		}
		var d [4]byte
		binary.BigEndian.PutUint32(d[:], e.digest)
		out = append(out, audit.Event{
			Index: e.index, Time: time.Unix(0, e.now).UTC(), Task: e.task,
			Label: e.label, Fields: fields, State: hex.EncodeToString(d[:]),
		})
	}
	return out
}

// Total returns how many events were recorded, kept or not.
func (l *EventLog) Total() uint64 {
	if l == nil {
		return 0
	}
	return l.next
}
