package faulty

import (
	"math/rand/v2"

	"github.com/simrt/simrt"
)

type entryKind uint8

const (
	writeEntry entryKind = iota + 1
	resizeEntry
	syncEntry
)

// entry is one journaled mutation or sync marker of one handle.
type entry struct {
	kind   entryKind
	blob   *blob
	offset uint64 // writeEntry
	data   []byte // writeEntry: our own copy
	sel    *selection
	selOff int                     // index of data[0] in sel
	size   uint64                  // resizeEntry
	done   *simrt.Handle[struct{}] // syncEntry
}

func (e *entry) end() uint64 { return e.offset + uint64(len(e.data)) }

// selection is which bytes of one write survive. It is drawn once, when
// first needed, and shared by every fragment of the write.
type selection struct {
	mode PartialWriteMode
	rate float64
	n    int
	keep []bool
}

// draw returns the selection, drawing it on first use.
func (s *selection) draw(rng *rand.Rand) []bool {
	if s.keep != nil {
		return s.keep
	}
	s.keep = make([]bool, s.n)
	if s.mode == Subset {
		for i := range s.keep {
			s.keep[i] = sample(rng, s.rate)
		}
		return s.keep
	}
	for i := range s.keep {
		if !sample(rng, s.rate) {
			break
		}
		s.keep[i] = true
	}
	return s.keep
}

// newSelection returns the selection for an n-byte write at the given
// rate, or nil when every byte is kept.
func newSelection(cfg WriteConfig, n int) *selection {
	if cfg.RetentionRate >= 1 {
		return nil
	}
	return &selection{mode: cfg.Mode, rate: cfg.RetentionRate, n: n}
}

// journal is the crash journal, in issue order.
type journal struct {
	entries []*entry
}

func (j *journal) push(e *entry) { j.entries = append(j.entries, e) }

// filter keeps the entries for which keep returns true.
func (j *journal) filter(keep func(*entry) bool) {
	out := j.entries[:0]
	for _, e := range j.entries {
		if keep(e) {
			out = append(out, e)
		}
	}
	clear(j.entries[len(out):])
	j.entries = out
}

// retire drops every entry of the handles match selects.
func (j *journal) retire(match func(*blob) bool) {
	if len(j.entries) == 0 {
		return
	}
	j.filter(func(e *entry) bool { return !match(e.blob) })
}

// synced drops every entry of handle b: its sync made them durable.
func (j *journal) synced(b *blob) {
	if len(j.entries) == 0 {
		return
	}
	j.filter(func(e *entry) bool { return e.blob != b })
}

// compact applies the markers of completed StartSync handles: a successful
// one drops every older entry of its handle, a failed one just goes.
func (j *journal) compact() {
	for i := 0; i < len(j.entries); i++ {
		m := j.entries[i]
		if m.kind != syncEntry || !m.done.Done() {
			continue
		}
		if _, err := m.done.Await(nil); err == nil {
			older := j.entries[:i]
			kept := 0
			for _, e := range older {
				if e.blob != m.blob {
					older[kept] = e
					kept++
				}
			}
			n := copy(j.entries[kept:], j.entries[i+1:])
			clear(j.entries[kept+n:])
			j.entries = j.entries[:kept+n]
			i = kept - 1
			continue
		}
		j.entries = append(j.entries[:i], j.entries[i+1:]...)
		i--
	}
}

// pendingResize reports whether a resize of b is journaled.
func (j *journal) pendingResize(b *blob) bool {
	for _, e := range j.entries {
		if e.kind == resizeEntry && e.blob == b {
			return true
		}
	}
	return false
}

// durable records that [offset, offset+n) of b is durable: journaled
// writes of b lose the bytes it covers (keeping their slice of the shared
// selection). If a resize of b is journaled, the range is journaled again,
// fully kept, so that a crash replays it after the resize. data is the
// range's contents; it is only read when needed, and then copied.
func (j *journal) durable(b *blob, offset uint64, data []byte) {
	if len(j.entries) == 0 || len(data) == 0 {
		return
	}
	end := offset + uint64(len(data))
	var out []*entry
	changed := false
	for i, e := range j.entries {
		if e.kind != writeEntry || e.blob != b || e.end() <= offset || end <= e.offset {
			if changed {
				out = append(out, e)
			}
			continue
		}
		if !changed {
			out = append(make([]*entry, 0, len(j.entries)+1), j.entries[:i]...)
			changed = true
		}
		if e.offset < offset {
			k := int(offset - e.offset)
			out = append(out, &entry{kind: writeEntry, blob: b, offset: e.offset, data: e.data[:k], sel: e.sel, selOff: e.selOff})
		}
		if end < e.end() {
			k := int(end - e.offset)
			out = append(out, &entry{kind: writeEntry, blob: b, offset: end, data: e.data[k:], sel: e.sel, selOff: e.selOff + k})
		}
	}
	if changed {
		j.entries = out
	}
	if j.pendingResize(b) {
		j.push(&entry{kind: writeEntry, blob: b, offset: offset, data: append([]byte(nil), data...)})
	}
}

// survivors returns, oldest first, the writes and resizes a crash keeps:
// those not older than a completed, successful StartSync of their handle.
func (j *journal) survivors() []*entry {
	synced := map[*blob]bool{}
	keep := make([]bool, len(j.entries))
	for i := len(j.entries) - 1; i >= 0; i-- {
		e := j.entries[i]
		if e.kind == syncEntry {
			if e.done.Done() {
				if _, err := e.done.Await(nil); err == nil {
					synced[e.blob] = true
				}
			}
			continue
		}
		keep[i] = !synced[e.blob]
	}
	var out []*entry
	for i, e := range j.entries {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}
