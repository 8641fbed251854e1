package simrt_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/simrt/simrt"
)

// This file is the model: what Go's channels and sync types (with simrt's
// documented differences) allow a run of a program to do. It checks a
// recorded run in three parts:
//
//   - each op's own outcome: the ok and err results, the value a Wait or a
//     Recv returned, the panics of misuse and of a panicking Once;
//   - the history against the primitives' sequential semantics, using only
//     the real-time order the stamps prove (op A ended before op B began):
//     every value received was sent by a Send that succeeded, and is
//     received once; a completed run receives (or leaves in the channel)
//     every value sent; per channel, values come out in the order they went
//     in; a closed channel refuses later Sends; a Signal and a Oneshot are
//     set once and every waiter sees the value that set them; a WaitGroup's
//     Wait returns after every Done; Once runs f once and every Do returns
//     after it; locks exclude (checked while the run goes on);
//   - a stall: the run may stop with tasks parked only if the model says
//     none of them can proceed in the state the history leaves (a channel
//     with room does not hold a sender, a free Mutex does not hold a Lock,
//     and so on). A parked op the model says is enabled is a lost wake-up.

// done is one op that took effect: an ended op, the case a Select took, or
// the function of a Timeout that returned nil (with the Timeout's stamps,
// which contain its own).
type done struct {
	task, idx  int
	o          op
	r          *opResult
	start, end uint64
}

func (d done) String() string { return fmt.Sprintf("task %d op %d %v", d.task, d.idx, d.o) }

// history is a recorded run, flattened for the checks.
type history struct {
	p    *program
	rec  *recorder
	done []done
}

func newHistory(p *program, rec *recorder) *history {
	h := &history{p: p, rec: rec}
	for ti, ops := range p.tasks {
		for i := range ops {
			if r := &rec.res[ti][i]; r.state == 2 {
				h.add(ti, i, ops[i], r, r.start, r.end)
			}
		}
	}
	return h
}

func (h *history) add(ti, i int, o op, r *opResult, start, end uint64) {
	switch o.kind {
	case opTimeout:
		if r.err == nil {
			h.add(ti, i, *o.inner, r.inner, start, end)
		}
		return
	case opSelect:
		if r.chosen < 0 || r.chosen >= len(o.cases) {
			return // checkOp reports it
		}
		sc := o.cases[r.chosen]
		var as op
		switch sc.kind {
		case caseRecv:
			as = op{kind: opRecv, obj: sc.obj}
		case caseSend:
			as = op{kind: opSend, obj: sc.obj, val: sc.val}
		case caseFire:
			as = op{kind: opSigWait}
		case caseOSRecv:
			as = op{kind: opOSRecv}
		case caseWait:
			as = op{kind: opWait}
		default:
			return
		}
		h.done = append(h.done, done{ti, i, as, r, start, end})
		return
	}
	h.done = append(h.done, done{ti, i, o, r, start, end})
}

// of returns the ops of kind that took effect (on channel ch when ch >= 0).
func (h *history) of(kind opKind, ch int) []done {
	var out []done
	for _, d := range h.done {
		if d.o.kind == kind && (ch < 0 || d.o.obj == ch) {
			out = append(out, d)
		}
	}
	return out
}

// check returns every way the run departs from the model. completed says
// that every task finished (and the buffered channels were drained);
// otherwise the run stalled.
func (h *history) check(completed, simulated bool) []string {
	errs := slices.Clone(h.rec.violations)
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for ti, ops := range h.p.tasks {
		for i := range ops {
			if r := &h.rec.res[ti][i]; r.state == 2 {
				h.checkOp(ti, i, ops[i], r, simulated, add)
			}
		}
	}
	for ch := range h.p.chans {
		h.checkChan(ch, completed, add)
	}
	h.checkSignal(add)
	h.checkOneshot(add)
	h.checkWaitGroup(add)
	h.checkOnce(add)
	if completed {
		for ti, f := range h.rec.finished {
			if !f {
				add("task %d did not finish though the run completed", ti)
			}
		}
	} else {
		for _, e := range h.enabledParked() {
			add("stalled, but %s", e)
		}
	}
	return errs
}

// checkOp checks what one ended op returned, on its own.
func (h *history) checkOp(ti, i int, o op, r *opResult, simulated bool, add func(string, ...any)) {
	at := fmt.Sprintf("task %d op %d %v", ti, i, o)
	switch o.kind {
	case opSend:
		if r.err != nil && !errors.Is(r.err, simrt.ErrClosed) {
			add("%s: err %v, want nil or ErrClosed", at, r.err)
		}
	case opSelect:
		if r.chosen < 0 || r.chosen >= len(o.cases) {
			add("%s: Select returned case %d of %d", at, r.chosen, len(o.cases))
			return
		}
		if sc := o.cases[r.chosen]; sc.kind == caseTick && len(r.times) != 1 {
			add("%s: tick case taken with %d ticks passed", at, len(r.times))
		}
	case opOnce:
		want := ""
		if r.ranF && o.n == 1 {
			want = oncePanic
		}
		if r.panicked != want {
			add("%s: panicked %q, want %q (it ran f: %v)", at, r.panicked, want, r.ranF)
		}
	case opMisuse:
		if want := misuses[o.n].panics; r.panicked != want {
			add("%s: panicked %q, want %q", at, r.panicked, want)
		}
	case opTicker:
		start := r.times[0]
		for k, at2 := range r.times[1:] {
			prev := r.times[k]
			if !at2.After(prev) {
				add("%s: tick %d at %v, not after %v", at, k+1, at2, prev)
			}
			if simulated && (at2.Sub(start) <= 0 || at2.Sub(start)%o.d != 0) {
				add("%s: tick %d at %v, not a multiple of %v after the start %v", at, k+1, at2, o.d, start)
			}
		}
	case opSleep:
		if got := r.times[1].Sub(r.times[0]); got < o.d {
			add("%s: slept %v", at, got)
		}
	case opTimeout:
		if r.err != nil && !errors.Is(r.err, simrt.ErrTimeout) {
			add("%s: err %v, want nil or ErrTimeout", at, r.err)
		}
		if o.inner.kind == opSleep { // the two outcomes the model knows
			if want := o.d < o.inner.d; errors.Is(r.err, simrt.ErrTimeout) != want {
				add("%s: err %v, want ErrTimeout: %v", at, r.err, want)
			}
		}
		if r.err == nil {
			h.checkOp(ti, i, *o.inner, r.inner, simulated, add)
		}
	}
}

// checkChan checks channel ch's history.
func (h *history) checkChan(ch int, completed bool, add func(string, ...any)) {
	c := h.p.chans[ch]
	buffered := c.unbounded || c.capacity > 0
	type sent struct {
		d     done
		taken bool
		deq   done // the receive that took it (the final drain's stamps for the drain)
	}
	sends := map[int]*sent{}
	var enq []*sent
	for _, d := range append(h.of(opSend, ch), h.of(opTrySend, ch)...) {
		okSend := d.r.ok
		if d.o.kind == opSend {
			okSend = d.r.err == nil
		}
		if okSend {
			s := &sent{d: d}
			sends[d.o.val] = s
			enq = append(enq, s)
		}
	}
	closes := h.of(opClose, ch)
	closedBefore := func(end uint64) bool { // a Close began before end
		for _, cl := range closes {
			if cl.start < end {
				return true
			}
		}
		return false
	}
	closedAfterEnd := func(start uint64) bool { // a Close ended before start
		for _, cl := range closes {
			if cl.end < start {
				return true
			}
		}
		return false
	}
	take := func(v int, d done, what string) {
		s := sends[v]
		switch {
		case s == nil:
			add("c%d: %s got %d, which no successful send sent", ch, what, v)
		case s.taken:
			add("c%d: %s got %d, already received by %v", ch, what, v, s.deq)
		default:
			s.taken, s.deq = true, d
		}
	}
	recvs := append(h.of(opRecv, ch), h.of(opTryRecv, ch)...)
	for _, d := range recvs {
		if d.r.ok {
			take(d.r.v, d, d.String())
		}
	}
	drain := done{start: h.rec.drainStamp, end: h.rec.drainStamp}
	for _, v := range h.rec.drained[ch] {
		take(v, drain, "the final drain")
	}
	if completed {
		for _, s := range enq {
			if !s.taken {
				add("c%d: %v sent %d, which nobody received and the drain did not find", ch, s.d, s.d.o.val)
			}
		}
	}
	// deqStart is when the value was certainly still in the channel:
	// until its receive began (forever if it was never received).
	deqStart := func(s *sent) uint64 {
		if !s.taken {
			return ^uint64(0)
		}
		return s.deq.start
	}
	for _, d := range h.of(opSend, ch) {
		if errors.Is(d.r.err, simrt.ErrClosed) && !closedBefore(d.end) {
			add("c%d: %v returned ErrClosed before any Close began", ch, d)
		}
		if d.r.err == nil && closedAfterEnd(d.start) {
			add("c%d: %v succeeded though a Close ended before it began", ch, d)
		}
	}
	for _, d := range h.of(opTrySend, ch) {
		if d.r.ok && closedAfterEnd(d.start) {
			add("c%d: %v succeeded though a Close ended before it began", ch, d)
		}
		if !d.r.ok && c.unbounded && !closedBefore(d.end) {
			add("c%d: %v failed on an open unbounded channel", ch, d)
		}
	}
	for _, d := range recvs {
		if d.o.kind == opRecv && !d.r.ok && !closedBefore(d.end) {
			add("c%d: %v reported the channel closed before any Close began", ch, d)
		}
		if d.r.ok || !buffered {
			continue
		}
		// A Recv that reported closed, or a TryRecv that found nothing,
		// cannot have run while a value sat in the buffer throughout.
		for _, s := range enq {
			if s.d.end < d.start && deqStart(s) > d.end {
				add("c%d: %v found nothing while %d (sent by %v) was queued throughout", ch, d, s.d.o.val, s.d)
				break
			}
		}
	}
	// FIFO: if x went in before y did, y does not come out before x.
	for _, x := range enq {
		for _, y := range enq {
			if x == y || !y.taken || x.d.end >= y.d.start {
				continue
			}
			if y.deq.end < deqStart(x) {
				add("c%d: %d (sent by %v) went in before %d (sent by %v) but came out after it (%v took %d)",
					ch, x.d.o.val, x.d, y.d.o.val, y.d, y.deq, y.d.o.val)
			}
		}
	}
}

func (h *history) checkSignal(add func(string, ...any)) {
	var winner *done
	fires := h.of(opFire, -1)
	for i, d := range fires {
		if d.r.ok {
			if winner != nil {
				add("signal: %v and %v both fired it", *winner, d)
			}
			winner = &fires[i]
		}
	}
	for _, d := range fires {
		if !d.r.ok && (winner == nil || winner.start > d.end) {
			add("signal: %v reported it already fired, before any successful Fire began", d)
		}
		if d.r.ok && winner != nil && winner.end < d.start {
			add("signal: %v fired after %v had", d, *winner)
		}
	}
	for _, d := range h.of(opSigWait, -1) {
		switch {
		case winner == nil:
			add("signal: %v returned %d, but no Fire succeeded", d, d.r.v)
		case d.r.v != winner.o.val:
			add("signal: %v returned %d, want %d from %v", d, d.r.v, winner.o.val, *winner)
		case winner.start > d.end:
			add("signal: %v returned before %v began", d, *winner)
		}
	}
}

func (h *history) checkOneshot(add func(string, ...any)) {
	var winner *done
	sends := h.of(opOSSend, -1)
	for i, d := range sends {
		if d.r.ok {
			if winner != nil {
				add("oneshot: %v and %v both sent", *winner, d)
			}
			winner = &sends[i]
		}
	}
	closes := h.of(opOSClose, -1)
	closedBefore := func(end uint64) bool {
		for _, cl := range closes {
			if cl.start < end {
				return true
			}
		}
		return false
	}
	for _, d := range sends {
		if !d.r.ok && (winner == nil || winner.start > d.end) && !closedBefore(d.end) {
			add("oneshot: %v failed, before any Send succeeded or Close began", d)
		}
	}
	if winner != nil {
		for _, cl := range closes {
			if cl.end < winner.start {
				add("oneshot: %v succeeded though %v ended before it began", *winner, cl)
			}
		}
	}
	for _, d := range h.of(opOSRecv, -1) {
		switch {
		case d.r.err == nil && winner == nil:
			add("oneshot: %v returned %d, but no Send succeeded", d, d.r.v)
		case d.r.err == nil && (d.r.v != winner.o.val || winner.start > d.end):
			add("oneshot: %v returned %d, want %d from %v", d, d.r.v, winner.o.val, *winner)
		case d.r.err != nil && !errors.Is(d.r.err, simrt.ErrClosed):
			add("oneshot: %v returned %v, want nil or ErrClosed", d, d.r.err)
		case d.r.err != nil && winner != nil:
			add("oneshot: %v returned ErrClosed, but %v succeeded", d, *winner)
		case d.r.err != nil && !closedBefore(d.end):
			add("oneshot: %v returned ErrClosed before any Close began", d)
		}
	}
}

func (h *history) checkWaitGroup(add func(string, ...any)) {
	dones := h.of(opDone, -1)
	for _, w := range h.of(opWait, -1) {
		if n := len(dones); n < h.p.wgCount[0] {
			add("waitgroup: %v returned with %d of %d Dones called", w, n, h.p.wgCount[0])
			continue
		}
		for _, d := range dones {
			if d.start > w.end {
				add("waitgroup: %v returned before %v began", w, d)
			}
		}
	}
}

func (h *history) checkOnce(add func(string, ...any)) {
	ran := 0
	for _, d := range h.of(opOnce, -1) {
		if d.r.ranF {
			ran++
		}
		if h.rec.onceEnded == 0 || h.rec.onceEnded > d.end {
			add("once: %v returned before f ended", d)
		}
	}
	if ran > 1 {
		add("once: f ran %d times", ran)
	}
}

// enabledParked returns, for a run that stopped with tasks parked, every
// parked op the model says can proceed in the state the history leaves:
// each is a lost wake-up (or a task held back for no reason). It also
// reports a task that is not parked at all. Call it with rec.mu held, or
// after the run.
func (h *history) enabledParked() []string {
	rec, p := h.rec, h.p
	count := make([]int, len(p.chans))
	closed := make([]bool, len(p.chans))
	for _, d := range h.done {
		switch d.o.kind {
		case opSend:
			if d.r.err == nil {
				count[d.o.obj]++
			}
		case opTrySend:
			if d.r.ok {
				count[d.o.obj]++
			}
		case opRecv, opTryRecv:
			if d.r.ok {
				count[d.o.obj]--
			}
		case opClose:
			closed[d.o.obj] = true
		}
	}
	fired := len(h.of(opFire, -1)) > 0
	osDone := len(h.of(opOSClose, -1)) > 0
	for _, d := range h.of(opOSSend, -1) {
		osDone = osDone || d.r.ok
	}
	wgLeft := 0
	if p.waitGroups > 0 {
		wgLeft = p.wgCount[0] - len(h.of(opDone, -1))
	}
	// parked returns the op task ti waits in, if it waits in one.
	parked := func(ti int) (op, bool) {
		if rec.finished[ti] || !rec.inOp[ti] || rec.holding[ti] {
			return op{}, false
		}
		return p.tasks[ti][rec.cur[ti]], true
	}
	writerWaiting := func(self int) bool {
		for ti := range p.tasks {
			if o, ok := parked(ti); ok && ti != self && o.kind == opWLock {
				return true
			}
		}
		return false
	}
	// partner reports whether a task other than self waits to do kind
	// (caseRecv or caseSend) on channel ch.
	partner := func(self, ch int, kind caseKind) bool {
		plain := opRecv
		if kind == caseSend {
			plain = opSend
		}
		for ti := range p.tasks {
			o, ok := parked(ti)
			if !ok || ti == self {
				continue
			}
			if o.kind == plain && o.obj == ch {
				return true
			}
			if o.kind == opSelect {
				for _, sc := range o.cases {
					if sc.kind == kind && sc.obj == ch {
						return true
					}
				}
			}
		}
		return false
	}
	canRecv := func(self, ch int) (bool, string) {
		c := p.chans[ch]
		switch {
		case closed[ch]:
			return true, "closed"
		case count[ch] > 0:
			return true, fmt.Sprintf("holds %d values", count[ch])
		case !c.unbounded && c.capacity == 0 && partner(self, ch, caseSend):
			return true, "a sender waits"
		}
		return false, ""
	}
	canSend := func(self, ch int) (bool, string) {
		c := p.chans[ch]
		switch {
		case closed[ch]:
			return true, "closed"
		case c.unbounded:
			return true, "unbounded"
		case c.capacity > 0 && count[ch] < c.capacity:
			return true, fmt.Sprintf("has room: %d of %d", count[ch], c.capacity)
		case c.capacity == 0 && partner(self, ch, caseRecv):
			return true, "a receiver waits"
		}
		return false, ""
	}
	var out []string
	for ti := range p.tasks {
		if rec.finished[ti] {
			continue
		}
		o, ok := parked(ti)
		if !ok {
			out = append(out, fmt.Sprintf("task %d is not parked in an op (at op %d, holding a lock: %v)", ti, rec.cur[ti], rec.holding[ti]))
			continue
		}
		why := ""
		switch o.kind {
		case opSend:
			if can, w := canSend(ti, o.obj); can {
				why = fmt.Sprintf("c%d (%v) %s", o.obj, p.chans[o.obj], w)
			}
		case opRecv:
			if can, w := canRecv(ti, o.obj); can {
				why = fmt.Sprintf("c%d (%v) %s", o.obj, p.chans[o.obj], w)
			}
		case opSelect:
			for _, sc := range o.cases {
				var can bool
				var w string
				switch sc.kind {
				case caseRecv:
					can, w = canRecv(ti, sc.obj)
				case caseSend:
					can, w = canSend(ti, sc.obj)
				case caseFire:
					can, w = fired, "the signal fired"
				case caseOSRecv:
					can, w = osDone, "the oneshot is sent or closed"
				case caseWait:
					can, w = wgLeft == 0, "the counter is zero"
				case caseLock:
					can, w = rec.mutexHeld == 0, "the mutex is free"
				case caseAfter, caseTick:
					can, w = true, "a timer is pending"
				}
				if can {
					why = fmt.Sprintf("case %v: %s", sc, w)
					break
				}
			}
		case opLock:
			if rec.mutexHeld == 0 {
				why = "the mutex is free"
			}
		case opRLock:
			if rec.writers == 0 && !writerWaiting(ti) {
				why = "no writer holds or waits for the RWMutex"
			}
		case opWLock:
			if rec.writers == 0 && rec.readers == 0 {
				why = "the RWMutex is free"
			}
		case opWait:
			if wgLeft == 0 {
				why = "the counter is zero"
			}
		case opSigWait:
			if fired {
				why = "the signal fired"
			}
		case opOSRecv:
			if osDone {
				why = "the oneshot is sent or closed"
			}
		case opOnce:
			if !rec.onceRunning {
				why = "no Do is running f"
			}
		default: // sleeps, tickers, timeouts, and ops that never park
			why = "the op does not wait for another task"
		}
		if why != "" {
			out = append(out, fmt.Sprintf("task %d is parked in op %d %v, which can proceed: %s", ti, rec.cur[ti], o, why))
		}
	}
	return out
}

// quietFor is how long a production run must see no op begin or end, with
// every task parked in an op the model says cannot proceed, before it is
// judged stalled; stallFor is how long it waits when the model says some
// parked op can proceed (a lost wake-up, or a slow wake-up).
const (
	quietFor = 20 * time.Millisecond
	stallFor = 2 * time.Second
)
