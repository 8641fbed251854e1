package simrt_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The differential test (diff_*_test.go) runs random programs of tasks
// over every blocking primitive and checks each run against an executable
// model of the primitives' semantics (Go's channels and sync types, with
// simrt's documented differences: a Send on a closed Chan returns
// ErrClosed instead of panicking, a second Close does nothing). This file
// is the programs: their shape, a generator driven by a chooser (a seeded
// generator for sweeps, the fuzzer's bytes for FuzzDifferential) and a
// readable listing for failure reports.

// dChan is a channel of a program: unbuffered (capacity 0), bounded, or
// unbounded.
type dChan struct {
	capacity  int
	unbounded bool
}

func (c dChan) String() string {
	switch {
	case c.unbounded:
		return "unbounded"
	case c.capacity == 0:
		return "unbuffered"
	}
	return fmt.Sprintf("cap %d", c.capacity)
}

// opKind is what one step of a task does.
type opKind uint8

const (
	opSend    opKind = iota + 1 // Chan.Send(val)
	opRecv                      // Chan.Recv
	opTrySend                   // Chan.TrySend(val)
	opTryRecv                   // Chan.TryRecv
	opClose                     // Chan.Close
	opSelect                    // Select(cases...)
	opLock                      // Mutex: Lock, a yield inside, Unlock
	opTryLock                   // Mutex: TryLock, and if it took it a yield and Unlock
	opRLock                     // RWMutex: RLock, a yield inside, RUnlock
	opWLock                     // RWMutex: Lock, a yield inside, Unlock
	opDone                      // WaitGroup.Done
	opWait                      // WaitGroup.Wait
	opFire                      // Signal.Fire(val)
	opSigWait                   // Signal.Wait
	opOSSend                    // Oneshot.Send(val)
	opOSClose                   // Oneshot.Close
	opOSRecv                    // Oneshot.Recv
	opOnce                      // Once.Do(f); f panics when n is 1
	opTicker                    // NewTicker(d), n Recvs, Stop
	opSleep                     // Sleep(d)
	opYield                     // Reschedule
	opTimeout                   // Timeout(d, inner)
	opMisuse                    // a call the model says panics (n: which, see misuses)
)

var opNames = [...]string{opSend: "send", opRecv: "recv", opTrySend: "trysend", opTryRecv: "tryrecv",
	opClose: "close", opSelect: "select", opLock: "lock", opTryLock: "trylock", opRLock: "rlock",
	opWLock: "wlock", opDone: "done", opWait: "wait", opFire: "fire", opSigWait: "sigwait",
	opOSSend: "ossend", opOSClose: "osclose", opOSRecv: "osrecv", opOnce: "once", opTicker: "ticker",
	opSleep: "sleep", opYield: "yield", opTimeout: "timeout", opMisuse: "misuse"}

// caseKind is what one case of a Select waits for.
type caseKind uint8

const (
	caseRecv   caseKind = iota + 1 // Chan.OnRecv
	caseSend                       // Chan.OnSend(val)
	caseFire                       // Signal.OnFire
	caseOSRecv                     // Oneshot.OnRecv
	caseWait                       // WaitGroup.OnWait
	caseLock                       // Mutex.OnLock (then a yield and Unlock)
	caseAfter                      // After(d)
	caseTick                       // Ticker.OnTick of a ticker made for the Select, period d
)

var caseNames = [...]string{caseRecv: "recv", caseSend: "send", caseFire: "fire",
	caseOSRecv: "osrecv", caseWait: "wait", caseLock: "lock", caseAfter: "after", caseTick: "tick"}

// selCase is one case of a Select op.
type selCase struct {
	kind caseKind
	obj  int           // the channel, signal, oneshot, wait group or mutex
	val  int           // the value a send case offers
	d    time.Duration // After's delay, the ticker's period
}

// op is one step of a task. Values sent (val of a send, a send case, a
// Fire, a Oneshot send) are unique in the program, so a received value
// names its sender.
type op struct {
	kind  opKind
	obj   int
	val   int
	d     time.Duration
	n     int
	cases []selCase
	inner *op // Timeout's function: one op
	// retry repeats a TrySend or TryRecv (with a 1ms sleep between), a
	// Select (until it takes its first case) or a Timeout (until its
	// function completes), up to maxRetries times: the op then has the
	// effect of its plain form, so the channel traffic stays balanced.
	retry bool
}

// maxRetries bounds a retried op, so a retry loop waiting for a partner
// that is itself stuck ends and the run can stall.
const maxRetries = 50

// misuses are the calls the model says panic, each on an object of the
// task's own, with the panic's message.
var misuses = []struct {
	name, panics string
}{
	{"Mutex.Unlock of an unlocked mutex", "simrt.Mutex.Unlock: mutex is not locked"},
	{"RWMutex.RUnlock with no read lock", "simrt.RWMutex.RUnlock: no read lock is held"},
	{"RWMutex.Unlock with no write lock", "simrt.RWMutex.Unlock: the lock is not held for writing"},
	{"WaitGroup.Add(-1) at zero", "simrt.WaitGroup: negative counter"},
	{"NewChan(-1)", "simrt.NewChan: negative capacity (use 0 for an unbuffered channel, NewUnboundedChan for no limit)"},
	{"NewTicker(0)", "simrt.NewTicker: non-positive interval"},
}

// oncePanic is what a panicking Once op's f panics with.
const oncePanic = "differential: once f panics"

// program is a set of tasks over shared primitives. Each wait group starts
// with its counter at the number of Done ops on it (the root adds it
// before it spawns the tasks).
type program struct {
	chans                                 []dChan
	mutexes, rwmutexes, signals, oneshots int
	onces, waitGroups                     int
	tasks                                 [][]op
	wgCount                               []int
}

// chooser makes the generator's choices.
type chooser interface {
	intn(n int) int
}

// rngChooser draws choices from a seeded generator.
type rngChooser struct{ r *rand.Rand }

func (c rngChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser takes its choices from the fuzzer's bytes, one byte each,
// and once they run out from a generator seeded with their hash, so every
// input is a whole program and the fuzzer's edits change choices in place.
type byteChooser struct {
	b    []byte
	rest *rand.Rand
}

func newByteChooser(b []byte) *byteChooser {
	h := fnv.New64a()
	h.Write(b)
	return &byteChooser{b: b, rest: rand.New(rand.NewPCG(h.Sum64(), 26))}
}

func (c *byteChooser) intn(n int) int {
	if len(c.b) == 0 {
		return c.rest.IntN(n)
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	return v % n
}

// generator builds one program.
type generator struct {
	c       chooser
	p       *program
	next    int  // the next unique value
	ordered bool // the channel traffic cannot deadlock (see generate)
}

func (g *generator) val() int { g.next++; return g.next }

func (g *generator) chance(percent int) bool { return g.c.intn(100) < percent }

func (g *generator) durations(ds ...time.Duration) time.Duration { return ds[g.c.intn(len(ds))] }

// generate returns a random program. Most channel traffic is balanced
// (as many receives as sends per channel). In an ordered program (60%)
// each channel's senders and receivers are different tasks, every task
// does its channel ops in channel order, and Selects, Timeouts and Try ops
// on channels are retried until they take effect: its channel traffic
// cannot deadlock, so most runs complete and reach deep states. The rest
// (and closes, timeouts and the other primitives) make runs that
// legitimately stall, which the model checks too.
func generate(c chooser) *program {
	g := &generator{c: c, p: &program{}}
	g.ordered = g.chance(60)
	p := g.p
	for range 1 + c.intn(3) {
		var ch dChan
		switch k := c.intn(10); {
		case k < 3:
		case k < 8:
			ch.capacity = 1 + c.intn(3)
		default:
			ch.unbounded = true
		}
		p.chans = append(p.chans, ch)
	}
	some := func() int { return c.intn(2) }
	p.mutexes, p.rwmutexes, p.signals = some(), some(), some()
	p.oneshots, p.onces, p.waitGroups = some(), some(), some()
	p.wgCount = make([]int, p.waitGroups)
	p.tasks = make([][]op, 2+c.intn(4))
	putIn := func(t int, o op) {
		ops := p.tasks[t]
		i := c.intn(len(ops) + 1)
		p.tasks[t] = append(ops[:i], append([]op{o}, ops[i:]...)...)
	}
	put := func(o op) { putIn(c.intn(len(p.tasks)), o) }
	for ch := range p.chans {
		sends := 1 + c.intn(7)
		recvs := sends
		if !g.ordered && g.chance(10) {
			recvs += c.intn(3) - 1
		}
		// In an ordered program the first split tasks of a permutation
		// send on ch and the others receive.
		perm := make([]int, len(p.tasks))
		for i := range perm {
			j := c.intn(i + 1)
			perm[i], perm[j] = perm[j], i
		}
		split := 1 + c.intn(len(p.tasks)-1)
		for range sends {
			if g.ordered {
				putIn(perm[c.intn(split)], g.sendOp(ch))
			} else {
				put(g.sendOp(ch))
			}
		}
		for range recvs {
			if g.ordered {
				putIn(perm[split+c.intn(len(perm)-split)], g.recvOp(ch))
			} else {
				put(g.recvOp(ch))
			}
		}
		if !g.ordered && g.chance(10) {
			put(op{kind: opClose, obj: ch})
		}
	}
	for range c.intn(6) {
		o := g.otherOp()
		put(o)
		// A wait mostly gets something to wait for.
		if k := waitsFor(o); k != 0 && g.chance(80) {
			put(g.releaseOp(k))
		}
	}
	if g.ordered {
		for _, ops := range p.tasks {
			orderChanOps(ops)
		}
	}
	for _, ops := range p.tasks {
		for _, o := range ops {
			if o.kind == opDone {
				p.wgCount[o.obj]++
			}
		}
	}
	return p
}

// orderChanOps sorts a task's channel ops, in place and leaving its other
// ops where they are, by channel and then direction (receives first).
// When every task's are so ordered, the channel traffic alone cannot
// deadlock (a waiter on the lowest channel any task waits on has a partner
// that waits on no lower one), so most such runs complete and reach deep
// states; unordered programs stall far more often, legitimately.
func orderChanOps(ops []op) {
	var at []int
	var chanOps []op
	for i, o := range ops {
		if _, ok := chanKey(o); ok {
			at = append(at, i)
			chanOps = append(chanOps, o)
		}
	}
	slices.SortStableFunc(chanOps, func(a, b op) int {
		ka, _ := chanKey(a)
		kb, _ := chanKey(b)
		return ka - kb
	})
	for k, i := range at {
		ops[i] = chanOps[k]
	}
}

// chanKey is the sort key of a channel op: 2*channel, plus 1 for a send.
func chanKey(o op) (int, bool) {
	if o.kind == opTimeout {
		o = *o.inner
	}
	switch o.kind {
	case opRecv, opTryRecv:
		return 2 * o.obj, true
	case opSend, opTrySend:
		return 2*o.obj + 1, true
	case opSelect:
		switch c := o.cases[0]; c.kind {
		case caseRecv:
			return 2 * c.obj, true
		case caseSend:
			return 2*c.obj + 1, true
		}
	}
	return 0, false
}

// waitsFor returns the kind of op that releases what o waits for (a
// Fire for a Signal.Wait, say), or 0.
func waitsFor(o op) opKind {
	if o.kind == opTimeout {
		o = *o.inner
	}
	switch o.kind {
	case opSigWait:
		return opFire
	case opOSRecv:
		return opOSSend
	case opWait:
		return opDone
	}
	return 0
}

// releaseOp returns an op of kind k (opFire, opOSSend or opDone).
func (g *generator) releaseOp(k opKind) op {
	if k == opOSSend && g.chance(20) {
		return op{kind: opOSClose}
	}
	return op{kind: k, val: g.val()}
}

// sendOp returns an op that sends a new value on channel ch: a Send,
// sometimes a TrySend or a Select with the send among other cases.
func (g *generator) sendOp(ch int) op {
	if g.ordered {
		return g.retried(op{kind: opSend, obj: ch, val: g.val()},
			op{kind: opTrySend, obj: ch, val: g.val()}, selCase{kind: caseSend, obj: ch, val: g.val()})
	}
	switch k := g.c.intn(20); {
	case k < 14:
		return op{kind: opSend, obj: ch, val: g.val()}
	case k < 15:
		return op{kind: opTrySend, obj: ch, val: g.val()}
	case k < 19:
		return g.selectOp(selCase{kind: caseSend, obj: ch, val: g.val()})
	}
	return g.timeoutOp(op{kind: opSend, obj: ch, val: g.val()})
}

// recvOp returns an op that receives from channel ch.
func (g *generator) recvOp(ch int) op {
	if g.ordered {
		return g.retried(op{kind: opRecv, obj: ch}, op{kind: opTryRecv, obj: ch}, selCase{kind: caseRecv, obj: ch})
	}
	switch k := g.c.intn(20); {
	case k < 14:
		return op{kind: opRecv, obj: ch}
	case k < 15:
		return op{kind: opTryRecv, obj: ch}
	case k < 19:
		return g.selectOp(selCase{kind: caseRecv, obj: ch})
	}
	return g.timeoutOp(op{kind: opRecv, obj: ch})
}

// retried returns, for an ordered program, plain (a Send or Recv), or a
// retried form of it: try (its Try op), a Select of sc with timers beside
// it, or plain in a Timeout.
func (g *generator) retried(plain, try op, sc selCase) op {
	switch k := g.c.intn(10); {
	case k < 6:
		return plain
	case k < 7:
		try.retry = true
		return try
	case k < 9:
		cases := []selCase{sc}
		for range 1 + g.c.intn(2) {
			if g.chance(70) {
				cases = append(cases, selCase{kind: caseAfter, d: g.durations(0, time.Millisecond, 3*time.Millisecond)})
			} else {
				cases = append(cases, selCase{kind: caseTick, d: g.durations(time.Millisecond, 2*time.Millisecond)})
			}
		}
		return op{kind: opSelect, cases: cases, retry: true}
	}
	o := g.timeoutOp(plain)
	o.retry = o.kind == opTimeout
	return o
}

// selectOp returns a Select of first and up to two other cases.
func (g *generator) selectOp(first selCase) op {
	cases := []selCase{first}
	for range g.c.intn(3) {
		if sc, ok := g.otherCase(); ok {
			i := g.c.intn(len(cases) + 1)
			cases = append(cases[:i], append([]selCase{sc}, cases[i:]...)...)
		}
	}
	return op{kind: opSelect, cases: cases}
}

// otherCase returns a random case over the program's primitives.
func (g *generator) otherCase() (selCase, bool) {
	p := g.p
	switch g.c.intn(8) {
	case 0:
		return selCase{kind: caseRecv, obj: g.c.intn(len(p.chans))}, true
	case 1:
		return selCase{kind: caseSend, obj: g.c.intn(len(p.chans)), val: g.val()}, true
	case 2:
		return selCase{kind: caseFire, obj: 0}, p.signals > 0
	case 3:
		return selCase{kind: caseOSRecv, obj: 0}, p.oneshots > 0
	case 4:
		return selCase{kind: caseWait, obj: 0}, p.waitGroups > 0
	case 5:
		return selCase{kind: caseLock, obj: 0}, p.mutexes > 0
	case 6:
		return selCase{kind: caseAfter, d: g.durations(0, time.Millisecond, 3*time.Millisecond)}, true
	}
	return selCase{kind: caseTick, d: g.durations(time.Millisecond, 2*time.Millisecond)}, true
}

// timeoutOp wraps inner in a Timeout.
func (g *generator) timeoutOp(inner op) op {
	return op{kind: opTimeout, d: g.durations(time.Millisecond, 2*time.Millisecond, 5*time.Millisecond), inner: &inner}
}

// otherOp returns an op on the other primitives (or a channel Close,
// Sleep, yield, Ticker, misuse).
func (g *generator) otherOp() op {
	p := g.p
	for {
		switch g.c.intn(16) {
		case 0:
			if p.mutexes > 0 {
				return op{kind: opLock}
			}
		case 1:
			if p.mutexes > 0 {
				return op{kind: opTryLock}
			}
		case 2:
			if p.rwmutexes > 0 {
				return op{kind: opRLock}
			}
		case 3:
			if p.rwmutexes > 0 {
				return op{kind: opWLock}
			}
		case 4:
			if p.waitGroups > 0 {
				return op{kind: opDone}
			}
		case 5:
			if p.waitGroups > 0 {
				return g.maybeTimeout(op{kind: opWait})
			}
		case 6:
			if p.signals > 0 {
				return op{kind: opFire, val: g.val()}
			}
		case 7:
			if p.signals > 0 {
				return g.maybeTimeout(op{kind: opSigWait})
			}
		case 8:
			if p.oneshots > 0 {
				if g.chance(25) {
					return op{kind: opOSClose}
				}
				return op{kind: opOSSend, val: g.val()}
			}
		case 9:
			if p.oneshots > 0 {
				return g.maybeTimeout(op{kind: opOSRecv})
			}
		case 10:
			if p.onces > 0 {
				n := 0
				if g.chance(20) {
					n = 1
				}
				return op{kind: opOnce, n: n}
			}
		case 11:
			return op{kind: opTicker, d: g.durations(time.Millisecond, 2*time.Millisecond), n: 1 + g.c.intn(3)}
		case 12:
			return op{kind: opSleep, d: g.durations(0, time.Millisecond, 2*time.Millisecond)}
		case 13:
			return op{kind: opYield}
		case 14:
			// A Timeout whose outcome the model knows: a short sleep in a
			// long Timeout returns nil, a long one in a short Timeout
			// ErrTimeout.
			if g.chance(50) {
				return op{kind: opTimeout, d: time.Hour, inner: &op{kind: opSleep, d: time.Millisecond}}
			}
			return op{kind: opTimeout, d: 2 * time.Millisecond, inner: &op{kind: opSleep, d: time.Hour}}
		case 15:
			return op{kind: opMisuse, n: g.c.intn(len(misuses))}
		}
	}
}

// maybeTimeout wraps o in a Timeout now and then.
func (g *generator) maybeTimeout(o op) op {
	if g.chance(30) {
		return g.timeoutOp(o)
	}
	return o
}

// String lists the program, one task a line.
func (p *program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "chans %v", p.chans)
	fmt.Fprintf(&b, "; mutex %d rwmutex %d signal %d oneshot %d once %d waitgroup %v\n",
		p.mutexes, p.rwmutexes, p.signals, p.oneshots, p.onces, p.wgCount)
	for i, ops := range p.tasks {
		fmt.Fprintf(&b, "  task %d:", i)
		for _, o := range ops {
			b.WriteString(" ")
			b.WriteString(o.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (o op) String() string {
	if o.retry {
		o.retry = false
		return "retry:" + o.String()
	}
	switch o.kind {
	case opSend, opTrySend:
		return fmt.Sprintf("%s(c%d,%d)", opNames[o.kind], o.obj, o.val)
	case opRecv, opTryRecv, opClose:
		return fmt.Sprintf("%s(c%d)", opNames[o.kind], o.obj)
	case opFire, opOSSend:
		return fmt.Sprintf("%s(%d)", opNames[o.kind], o.val)
	case opOnce:
		if o.n == 1 {
			return "once(panics)"
		}
		return "once"
	case opTicker:
		return fmt.Sprintf("ticker(%v,%d)", o.d, o.n)
	case opSleep:
		return fmt.Sprintf("sleep(%v)", o.d)
	case opTimeout:
		return fmt.Sprintf("timeout(%v,%v)", o.d, *o.inner)
	case opMisuse:
		return fmt.Sprintf("misuse(%s)", misuses[o.n].name)
	case opSelect:
		parts := make([]string, len(o.cases))
		for i, c := range o.cases {
			parts[i] = c.String()
		}
		return "select{" + strings.Join(parts, "|") + "}"
	}
	return opNames[o.kind]
}

func (c selCase) String() string {
	switch c.kind {
	case caseRecv:
		return fmt.Sprintf("recv c%d", c.obj)
	case caseSend:
		return fmt.Sprintf("send c%d %d", c.obj, c.val)
	case caseAfter, caseTick:
		return fmt.Sprintf("%s %v", caseNames[c.kind], c.d)
	}
	return caseNames[c.kind]
}
