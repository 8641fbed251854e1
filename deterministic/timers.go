package deterministic

import (
	"math"
	"time"
)

// never is the end of simulated time: the largest instant the clock can
// hold (2262-04-11, math.MaxInt64 ns after the Unix epoch). Sums of times and
// durations saturate here instead of wrapping, and nothing is ever due at
// never: a sleep or a timer that would end there or later never fires, so
// Sleep(math.MaxInt64) waits for good (like production, for 292 years)
// rather than wrapping into the past.
const never = math.MaxInt64

// addTime returns at+d, saturated to [0, never].
func addTime(at int64, d time.Duration) int64 {
	switch {
	case d > 0 && at > never-int64(d):
		return never
	case at+int64(d) < 0:
		return 0
	}
	return at + int64(d)
}

// timer is one alarm. A cancelled timer stays in the heap until its time
// comes (as in the reference): it still marks a point the clock can jump to,
// but it wakes nothing.
type timer struct {
	at        int64 // simulated nanoseconds since the Unix epoch
	seq       uint64
	task      *task  // woken when due, if set
	f         func() // called when due, if set
	cancelled bool
}

// Stop implements rtapi.Timer: a stopped timer stays in the heap, inert.
func (tm *timer) Stop() bool {
	if tm.cancelled {
		return false
	}
	tm.cancelled = true
	return true
}

// timers is a 4-ary min-heap ordered by (at, seq): timers due at the same
// instant fire in the order they were set. Each slot holds its timer's key
// beside the pointer, so ordering the heap reads no timer: with hundreds of
// pending timers, the pointed-to timers are cache misses that a sift
// would otherwise take at every level. It never reads a clock.
type timers struct {
	h    []timerSlot
	seq  uint64
	free []*timer // popped sleep timers, which nothing else refers to
	slab []timer  // timers not yet handed out (see alloc)
}

// timerSlot is one heap entry: the timer's key and the timer.
type timerSlot struct {
	at  int64
	seq uint64
	tm  *timer
}

// before orders slots by (at, seq).
func (a *timerSlot) before(b *timerSlot) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// timerSlab is how many timers alloc makes at once.
const timerSlab = 32

// alloc returns a new timer. Function timers cannot be reused (their
// callers may hold them, and Stop them, at any later time), so they are
// carved out of slabs instead: one allocation per timerSlab timers rather
// than one per AfterFunc. A slab lives as long as any of its timers is
// held; a popped timer drops its function, so a held timer keeps no
// closure alive.
func (t *timers) alloc() *timer {
	if len(t.slab) == 0 {
		t.slab = make([]timer, timerSlab)
	}
	tm := &t.slab[0]
	t.slab = t.slab[1:]
	return tm
}

func (t *timers) len() int { return len(t.h) }

// add schedules a timer and returns it (so it can be cancelled).
func (t *timers) add(at int64, tk *task, f func()) *timer {
	var tm *timer
	if n := len(t.free); n > 0 && f == nil {
		tm = t.free[n-1]
		t.free = t.free[:n-1]
		*tm = timer{at: at, seq: t.seq, task: tk}
	} else {
		tm = t.alloc()
		*tm = timer{at: at, seq: t.seq, task: tk, f: f}
	}
	s := timerSlot{at: at, seq: t.seq, tm: tm}
	t.seq++
	t.h = append(t.h, s)
	h := t.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !s.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = s
	return tm
}

// peek returns the earliest timer's time; ok is false when there is none.
func (t *timers) peek() (at int64, ok bool) {
	if len(t.h) == 0 {
		return 0, false
	}
	return t.h[0].at, true
}

// pop removes and returns the earliest timer.
func (t *timers) pop() *timer {
	h := t.h
	n := len(h) - 1
	top := h[0].tm
	last := h[n]
	h[n] = timerSlot{}
	h = h[:n]
	t.h = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
	return top
}

// recycle keeps a popped sleep timer for reuse. Only timers made for a
// task's own sleep qualify: AfterFunc timers are held by their callers.
func (t *timers) recycle(tm *timer) {
	if tm.task != nil && tm.f == nil && len(t.free) < 1024 {
		tm.task = nil
		t.free = append(t.free, tm)
	}
}

// clear drops every timer.
func (t *timers) clear() {
	clear(t.h)
	t.h = t.h[:0]
	t.slab = nil
}
