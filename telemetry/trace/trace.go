package trace

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/simrt/simrt/telemetry/audit"
)

// Options adjusts a trace. The zero value is ready to use.
type Options struct {
	// Title names the process in the viewer. Empty means "simrt".
	Title string
}

// Event is one record of the trace-event format. Write produces them; the
// type is exported so that tests and tools can decode a trace file.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`             // X slice, i instant, b/e async, s/f flow, M metadata
	Ts   float64        `json:"ts"`             // microseconds of simulated time since the first event
	Dur  float64        `json:"dur,omitempty"`  // for X
	Pid  int            `json:"pid"`            // always 1
	Tid  int            `json:"tid"`            // task id + 1; 0 is the executor
	ID   uint64         `json:"id,omitempty"`   // for b/e and s/f
	BP   string         `json:"bp,omitempty"`   // "e" on flow ends
	S    string         `json:"s,omitempty"`    // instant scope ("t")
	Args map[string]any `json:"args,omitempty"` // fields, by name
}

// File is the JSON object Write produces.
type File struct {
	TraceEvents     []Event `json:"traceEvents"`
	DisplayTimeUnit string  `json:"displayTimeUnit"`
}

// Write writes the trace of events (oldest first, as EventLog.Events
// returns them) to w as one JSON object. Same events, same bytes.
func Write(w io.Writer, events []audit.Event, opts Options) error {
	enc := json.NewEncoder(w)
	return enc.Encode(File{TraceEvents: Build(events, opts), DisplayTimeUnit: "ns"})
}

// Build returns the trace events that Write encodes.
func Build(events []audit.Event, opts Options) []Event {
	b := &builder{tids: map[int]string{0: "executor"}, spawned: map[uint64]uint64{}}
	b.title = opts.Title
	if b.title == "" {
		b.title = "simrt"
	}
	b.run(events)
	return b.out()
}

// segment is one resume of a task, or a run of executor events between
// tasks, with the events it caused.
type segment struct {
	tid    int
	start  *audit.Event // process_task, nil for executor segments
	events []audit.Event
	time   time.Time
}

type send struct {
	tid     int
	ts      float64
	rest    []byte
	matched bool
}

type builder struct {
	title   string
	t0      time.Time
	evs     []Event
	tids    map[int]string
	next    uint64            // flow and async ids
	spawned map[uint64]uint64 // task id -> flow id of its spawn
	sends   []*send
}

func (b *builder) id() uint64 { b.next++; return b.next }

func (b *builder) run(events []audit.Event) {
	if len(events) == 0 {
		return
	}
	b.t0 = events[0].Time
	segs := segmentsOf(events, b.tids)
	gap := smallestGap(segs)
	for i := 0; i < len(segs); {
		j := i
		for j < len(segs) && segs[j].time.Equal(segs[i].time) {
			j++
		}
		width := gap
		if j < len(segs) {
			width = min(width, segs[j].time.Sub(segs[i].time))
		}
		slot := float64(width.Nanoseconds()) / 1e3 / float64(j-i)
		base := b.us(segs[i].time)
		for k := i; k < j; k++ {
			b.segment(&segs[k], base+float64(k-i)*slot, slot)
		}
		i = j
	}
}

// us converts a simulated time to trace microseconds.
func (b *builder) us(t time.Time) float64 { return float64(t.Sub(b.t0).Nanoseconds()) / 1e3 }

// segmentsOf cuts the log into resumes and executor runs, and names the
// tracks it finds.
func segmentsOf(events []audit.Event, tids map[int]string) []segment {
	var segs []segment
	byName := map[string]int{}
	for i := range events {
		e := &events[i]
		switch {
		case e.Label == audit.ProcessTask && len(e.Fields) == 2 && len(e.Fields[0]) == 8:
			id := binary.BigEndian.Uint64(e.Fields[0])
			tid := int(id) + 1
			name := string(e.Fields[1])
			tids[tid] = trackName(name, id)
			byName[name] = tid
			segs = append(segs, segment{tid: tid, start: e, time: e.Time})
		case e.Task == "<runtime>":
			if n := len(segs); n == 0 || segs[n-1].tid != 0 || !segs[n-1].time.Equal(e.Time) {
				segs = append(segs, segment{tid: 0, time: e.Time})
			}
			segs[len(segs)-1].events = append(segs[len(segs)-1].events, *e)
		default:
			n := len(segs)
			if n == 0 || segs[n-1].tid == 0 || !segs[n-1].time.Equal(e.Time) {
				// The log began inside this resume: find the track by name.
				tid, ok := byName[e.Task]
				if !ok {
					tid = -len(byName) - 1 // a track of its own, below the known ones
					byName[e.Task] = tid
					tids[tid] = trackName(e.Task, 0) + "?"
				}
				segs = append(segs, segment{tid: tid, time: e.Time})
			}
			segs[len(segs)-1].events = append(segs[len(segs)-1].events, *e)
		}
	}
	return segs
}

func trackName(name string, id uint64) string {
	if name == "" {
		name = "root"
	}
	return fmt.Sprintf("%s #%d", name, id)
}

// smallestGap is the smallest positive step between two instants of the
// run (normally one Cycle), 1 ms when there is none.
func smallestGap(segs []segment) time.Duration {
	gap := time.Duration(0)
	for i := 1; i < len(segs); i++ {
		if d := segs[i].time.Sub(segs[i-1].time); d > 0 && (gap == 0 || d < gap) {
			gap = d
		}
	}
	if gap == 0 {
		gap = time.Millisecond
	}
	return gap
}

// segment emits one segment laid out in [ts, ts+slot).
func (b *builder) segment(s *segment, ts, slot float64) {
	if s.start != nil {
		id := binary.BigEndian.Uint64(s.start.Fields[0])
		b.evs = append(b.evs, Event{Name: b.tids[s.tid], Cat: "task", Ph: "X", Ts: ts, Dur: slot,
			Pid: 1, Tid: s.tid, Args: map[string]any{"event": s.start.Index, "audit": s.start.State}})
		if f, ok := b.spawned[id]; ok {
			delete(b.spawned, id)
			b.evs = append(b.evs, Event{Name: "spawn", Cat: "spawn", Ph: "f", BP: "e", Ts: ts, Pid: 1, Tid: s.tid, ID: f})
		}
	}
	for k, e := range s.events {
		at := ts + slot*float64(k+1)/float64(len(s.events)+1)
		b.instant(s.tid, at, e)
	}
}

// instant emits one audited event, with the timers and flows it starts or
// ends.
func (b *builder) instant(tid int, ts float64, e audit.Event) {
	b.evs = append(b.evs, Event{Name: string(e.Label), Cat: category(e.Label), Ph: "i", S: "t", Ts: ts,
		Pid: 1, Tid: tid, Args: args(e)})
	switch {
	case e.Label == audit.Spawn && len(e.Fields) >= 1 && len(e.Fields[0]) == 8:
		f := b.id()
		b.spawned[binary.BigEndian.Uint64(e.Fields[0])] = f
		b.evs = append(b.evs, Event{Name: "spawn", Cat: "spawn", Ph: "s", Ts: ts, Pid: 1, Tid: tid, ID: f})
	case e.Label == audit.Timer && len(e.Fields) == 1 && len(e.Fields[0]) == 8:
		deadline := time.Unix(0, int64(binary.BigEndian.Uint64(e.Fields[0]))).UTC()
		end := max(b.us(deadline), ts)
		id := b.id()
		name := "timer +" + deadline.Sub(e.Time).String()
		b.evs = append(b.evs,
			Event{Name: name, Cat: "timer", Ph: "b", Ts: ts, Pid: 1, Tid: tid, ID: id},
			Event{Name: name, Cat: "timer", Ph: "e", Ts: end, Pid: 1, Tid: tid, ID: id})
	case e.Label == audit.SendAttempt && len(e.Fields) == 2 && len(e.Fields[1]) > 0:
		b.sends = append(b.sends, &send{tid: tid, ts: ts, rest: e.Fields[1]})
	case e.Label == audit.RecvSuccess && len(e.Fields) == 2 && len(e.Fields[1]) > 0:
		for _, s := range b.match(tid, e.Fields[1]) {
			id := b.id()
			b.evs = append(b.evs,
				Event{Name: "message", Cat: "network", Ph: "s", Ts: s.ts, Pid: 1, Tid: s.tid, ID: id},
				Event{Name: "message", Cat: "network", Ph: "f", BP: "e", Ts: ts, Pid: 1, Tid: tid, ID: id})
		}
	}
}

// match finds the oldest send from another task whose unread bytes begin
// got, consumes the bytes received (a receive longer than the send goes on
// into the same task's next sends) and returns the sends whose first byte
// this receive got: each send gets one arrow, to the receive that started
// reading it.
func (b *builder) match(tid int, got []byte) []*send {
	for i, s := range b.sends {
		if s.tid == tid || !hasPrefixEither(s.rest, got) {
			continue
		}
		var firsts []*send
		for _, t := range b.sends[i:] {
			if len(got) == 0 {
				break
			}
			if t.tid != s.tid {
				continue
			}
			if !hasPrefixEither(t.rest, got) {
				break
			}
			if !t.matched {
				t.matched = true
				firsts = append(firsts, t)
			}
			n := min(len(t.rest), len(got))
			t.rest, got = t.rest[n:], got[n:]
		}
		b.compact()
		return firsts
	}
	return nil
}

// hasPrefixEither reports whether the shorter of a and b begins the other.
func hasPrefixEither(a, b []byte) bool {
	n := min(len(a), len(b))
	return n > 0 && bytes.Equal(a[:n], b[:n])
}

// compact drops fully received sends.
func (b *builder) compact() {
	out := b.sends[:0]
	for _, s := range b.sends {
		if len(s.rest) > 0 {
			out = append(out, s)
		}
	}
	clear(b.sends[len(out):])
	b.sends = out
}

// out returns the metadata, then the events, their times rounded to the
// nanosecond.
func (b *builder) out() []Event {
	for i := range b.evs {
		b.evs[i].Ts = math.Round(b.evs[i].Ts*1e3) / 1e3
		b.evs[i].Dur = math.Round(b.evs[i].Dur*1e3) / 1e3
	}
	meta := []Event{{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": b.title}}}
	if !b.t0.IsZero() || len(b.evs) > 0 {
		meta[0].Args["start"] = b.t0.UTC().Format(time.RFC3339Nano)
	}
	for _, tid := range sortedKeys(b.tids) {
		meta = append(meta,
			Event{Name: "thread_name", Ph: "M", Pid: 1, Tid: tid, Args: map[string]any{"name": b.tids[tid]}},
			Event{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	return append(meta, b.evs...)
}

func sortedKeys(m map[int]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ { // insertion sort: a few hundred tracks at most
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// category groups event kinds for the viewer's filters: each audit label
// by the layer that records it. Labels this package does not know (an
// Auditor used directly) are "runtime".
func category(label audit.Label) string {
	switch label {
	case audit.BindAttempt, audit.BindFailure, audit.BindSuccess,
		audit.DialAttempt, audit.DialFailure, audit.DialSuccess,
		audit.AcceptAttempt, audit.AcceptFailure, audit.AcceptSuccess,
		audit.SendAttempt, audit.SendFailure, audit.SendSuccess,
		audit.RecvAttempt, audit.RecvFailure, audit.RecvSuccess,
		audit.NetSetLink, audit.NetSetDefaultLink, audit.NetCut, audit.NetHeal,
		audit.NetIsolate, audit.NetRejoin, audit.NetHealAll, audit.NetClog,
		audit.NetRelease, audit.NetReset, audit.HostReset:
		return "network"
	case audit.Open, audit.Remove, audit.Scan, audit.ReadAt, audit.WriteAt,
		audit.Resize, audit.Sync, audit.StartSync, audit.Close, audit.StorageDiskFault:
		return "storage"
	case audit.Timer:
		return "timer"
	default:
		return "runtime"
	}
}

// args renders an event's fields: text as text, the rest as hex, at most
// 64 bytes each; 8-byte fields also as numbers.
func args(e audit.Event) map[string]any {
	a := map[string]any{"event": e.Index}
	for i, f := range e.Fields {
		key := fmt.Sprintf("f%d", i)
		switch {
		case isText(f):
			a[key] = string(f)
		case len(f) == 8:
			a[key] = binary.BigEndian.Uint64(f)
		case len(f) > 64:
			a[key] = fmt.Sprintf("%x… (%d bytes)", f[:64], len(f))
		default:
			a[key] = fmt.Sprintf("%x", f)
		}
	}
	return a
}

func isText(f []byte) bool {
	if len(f) == 0 || len(f) > 256 {
		return false
	}
	for _, c := range f {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}
