package netconn_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/simrt/simrt/deterministic"
	"github.com/simrt/simrt/network/netconn"
)

// A conn op of FuzzNetConnAgainstPipe: kind, the end it runs on, and its
// argument (a length, or which deadline).
type connOp struct {
	kind connOpKind
	side int
	arg  byte
}

type connOpKind uint8

const (
	opWrite connOpKind = iota
	opRead
	opReadDeadline
	opWriteDeadline
	opDeadline
	opClose
	numConnOps
)

// Deadline choices: none, already past, an hour ahead.
const (
	dlNone = iota
	dlPast
	dlFuture
)

// pipeWriteLimit keeps the bytes one end has written and the other not
// read below the simulated connection's buffer, so that a netconn Write
// never parks (a net.Pipe Write always does, on its own goroutine here).
const pipeWriteLimit = 32 << 10

// connModel tracks what both implementations must agree on: which ends
// are closed, the deadlines, and the bytes each end has written that the
// other has not read.
type connModel struct {
	closed  [2]bool
	readDL  [2]int
	writeDL [2]int
	pending [2][]byte // pending[s]: written by s, not yet read by 1-s
	pattern byte
}

// impl is one of the two implementations under comparison.
type impl struct {
	name  string
	conns [2]net.Conn
	now   func() time.Time
	// write writes on end s; for net.Pipe, whose Write waits for the
	// reader, a write expected to succeed runs on the end's writer
	// goroutine and its result is checked at the end.
	write func(s int, b []byte, async bool) error
}

// errClass sorts an error into the classes net.Conn users tell apart.
func errClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.EOF):
		return "eof"
	case errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrClosedPipe):
		return "closed"
	}
	return "error"
}

func decodeConnOps(data []byte) []connOp {
	var ops []connOp
	for len(data) >= 2 && len(ops) < 128 {
		ops = append(ops, connOp{kind: connOpKind(data[0]&0x0f) % numConnOps, side: int(data[0]>>4) & 1, arg: data[1]})
		data = data[2:]
	}
	return ops
}

// FuzzNetConnAgainstPipe runs the same sequence of Read, Write, deadline
// and Close calls on a netconn.New pair (over the simulated network)
// and on a net.Pipe pair, and checks that every call returns the same
// bytes and the same class of error (none, closed, end of stream,
// deadline exceeded, other). Calls that would block (a Read with nothing
// to read) are left out, and so are the few points where net.Pipe, being
// unbuffered, cannot behave like a TCP connection: closing or setting a
// past write deadline while written bytes are unread, zero-length calls.
// Where net.Pipe and TCP order their checks differently (a past deadline
// on a conn whose peer has closed) either answer is accepted.
func FuzzNetConnAgainstPipe(f *testing.F) {
	w, r, rdl, wdl, dl, cl := byte(opWrite), byte(opRead), byte(opReadDeadline), byte(opWriteDeadline), byte(opDeadline), byte(opClose)
	const b = 0x10 // end 1
	f.Add([]byte{w, 10, r | b, 3, r | b, 200, w | b, 0, r, 0})
	f.Add([]byte{w, 40, r | b, 0, rdl | b, dlPast, r | b, 5, rdl | b, dlNone, r | b, 100})
	f.Add([]byte{wdl, dlPast, w, 1, wdl, dlFuture, w, 1, r | b, 9, cl, 0, cl, 0, r, 1, w, 1, rdl, dlNone})
	f.Add([]byte{cl | b, 0, r, 4, r, 4, w, 4, w, 4, dl, dlPast, r, 1, w, 1})
	f.Add([]byte{w, 255, w, 255, w | b, 7, r | b, 255, r, 255, r | b, 255, cl, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := decodeConnOps(data)
		deterministic.Seeded(1).Start(func(ctx *deterministic.Context) {
			sim := simConns(t, ctx)
			if sim == nil {
				return
			}
			pipe, waitPipe := pipeConns()
			runConnOps(t, ops, sim, pipe)
			for _, c := range sim.conns {
				c.Close()
			}
			for _, c := range pipe.conns {
				c.Close()
			}
			for _, err := range waitPipe() {
				t.Errorf("net.Pipe: a Write the reader drained failed: %v", err)
			}
		})
	})
}

// simConns connects two netconn conns over the simulated network.
func simConns(t *testing.T, ctx *deterministic.Context) *impl {
	l, err := ctx.Bind(netip.MustParseAddrPort("127.0.0.1:80"))
	if err != nil {
		t.Errorf("Bind: %v", err)
		return nil
	}
	defer l.Close()
	si, st, err := ctx.Dial(l.Addr())
	if err != nil {
		t.Errorf("Dial: %v", err)
		return nil
	}
	peer, psi, pst, err := l.Accept()
	if err != nil {
		t.Errorf("Accept: %v", err)
		return nil
	}
	sim := &impl{name: "NetConn", now: ctx.Now}
	sim.conns[0] = netconn.New(ctx, si, st, peer, l.Addr())
	sim.conns[1] = netconn.New(ctx, psi, pst, l.Addr(), peer)
	sim.write = func(s int, b []byte, _ bool) error {
		n, err := sim.conns[s].Write(b)
		if err == nil && n != len(b) {
			return errors.New("short write")
		}
		return err
	}
	return sim
}

// pipeConns makes a net.Pipe pair whose successful writes run on one
// writer goroutine per end; wait closes the writers and returns the
// errors of those writes.
func pipeConns() (*impl, func() []error) {
	a, b := net.Pipe()
	p := &impl{name: "net.Pipe", conns: [2]net.Conn{a, b}, now: time.Now}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	var queues [2]chan []byte
	for s := range queues {
		q := make(chan []byte, 128)
		queues[s] = q
		wg.Go(func() {
			for b := range q {
				if _, err := p.conns[s].Write(b); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	p.write = func(s int, b []byte, async bool) error {
		if async {
			queues[s] <- b
			return nil
		}
		_, err := p.conns[s].Write(b)
		return err
	}
	return p, func() []error {
		for _, q := range queues {
			close(q)
		}
		wg.Wait()
		return errs
	}
}

func deadline(now func() time.Time, which int) time.Time {
	switch which {
	case dlPast:
		return now().Add(-time.Second)
	case dlFuture:
		return now().Add(time.Hour)
	}
	return time.Time{}
}

// readFull reads exactly n bytes that are known to be pending, Read by
// Read (each must return at least one byte), and returns them.
func readFull(c net.Conn, n int) ([]byte, error) {
	buf := make([]byte, n)
	got := 0
	for got < n {
		k, err := c.Read(buf[got:])
		if err != nil {
			return buf[:got], err
		}
		if k == 0 {
			return buf[:got], errors.New("Read returned 0 bytes and no error")
		}
		got += k
	}
	return buf, nil
}

// runConnOps plays ops on both implementations and checks each against
// the model; it ends by reading what is still pending.
func runConnOps(t *testing.T, ops []connOp, impls ...*impl) {
	var m connModel
	check := func(i int, op connOp, im *impl, err error, allowed ...string) {
		if c := errClass(err); !slices.Contains(allowed, c) {
			t.Errorf("op %d %+v on %s: error %v (%s), want one of %v", i, op, im.name, err, c, allowed)
		}
	}
	for i, op := range ops {
		s, o := op.side, 1-op.side
		switch op.kind {
		case opWrite:
			n := 1 + int(op.arg)*4
			b := make([]byte, n)
			for j := range b {
				m.pattern++
				b[j] = m.pattern
			}
			var want []string
			async := false
			switch {
			case m.closed[s]:
				want = []string{"closed"}
			case m.closed[o] && m.writeDL[s] == dlPast:
				want = []string{"closed", "error", "timeout"}
			case m.closed[o]:
				want = []string{"closed", "error"} // net.Pipe: ErrClosedPipe; TCP: a send error
			case m.writeDL[s] == dlPast:
				want = []string{"timeout"}
			case len(m.pending[s])+n > pipeWriteLimit:
				continue
			default:
				want, async = []string{"ok"}, true
				m.pending[s] = append(m.pending[s], b...)
			}
			for _, im := range impls {
				check(i, op, im, im.write(s, b, async), want...)
			}
		case opRead:
			n := 1 + int(op.arg)
			var want []string
			k := min(n, len(m.pending[o]))
			switch {
			case m.closed[s]:
				want = []string{"closed"}
			case m.readDL[s] == dlPast && m.closed[o]:
				want = []string{"eof", "timeout"}
			case m.readDL[s] == dlPast:
				want = []string{"timeout"}
			case k > 0:
				want = []string{"ok"}
			case m.closed[o]:
				want = []string{"eof"}
			default:
				continue // would block
			}
			for _, im := range impls {
				if want[0] != "ok" {
					_, err := im.conns[s].Read(make([]byte, n))
					check(i, op, im, err, want...)
					continue
				}
				got, err := readFull(im.conns[s], k)
				check(i, op, im, err, want...)
				if !bytes.Equal(got, m.pending[o][:k]) {
					t.Errorf("op %d %+v on %s: read %d bytes other than the %d written", i, op, im.name, len(got), k)
				}
			}
			if want[0] == "ok" {
				m.pending[o] = m.pending[o][k:]
			}
		case opReadDeadline, opWriteDeadline, opDeadline:
			which := int(op.arg) % 3
			if which == dlPast && op.kind != opReadDeadline && len(m.pending[s]) > 0 {
				continue // it would cut net.Pipe's Write, which the netconn has finished
			}
			want := []string{"ok"}
			if m.closed[s] {
				want = []string{"closed"}
			}
			for _, im := range impls {
				want := want
				if im.name == "net.Pipe" && m.closed[o] {
					want = []string{"ok", "closed"} // net.Pipe refuses once the peer has closed; TCP does not
				}
				c, dl := im.conns[s], deadline(im.now, which)
				var err error
				switch op.kind {
				case opReadDeadline:
					err = c.SetReadDeadline(dl)
				case opWriteDeadline:
					err = c.SetWriteDeadline(dl)
				default:
					err = c.SetDeadline(dl)
				}
				check(i, op, im, err, want...)
			}
			if !m.closed[s] {
				if op.kind != opWriteDeadline {
					m.readDL[s] = which
				}
				if op.kind != opReadDeadline {
					m.writeDL[s] = which
				}
			}
		case opClose:
			if len(m.pending[s]) > 0 || len(m.pending[o]) > 0 {
				continue // net.Pipe drops unread bytes; TCP delivers them
			}
			for _, im := range impls {
				check(i, op, im, im.conns[s].Close(), "ok")
			}
			m.closed[s] = true
		}
	}
	// Read what is left, so that every net.Pipe Write completes.
	for o := range 2 {
		s := 1 - o
		if len(m.pending[o]) == 0 {
			continue
		}
		for _, im := range impls {
			im.conns[s].SetReadDeadline(time.Time{})
			got, err := readFull(im.conns[s], len(m.pending[o]))
			if err != nil || !bytes.Equal(got, m.pending[o]) {
				t.Errorf("%s: reading the %d bytes left on end %d: %d bytes, %v", im.name, len(m.pending[o]), s, len(got), err)
			}
		}
	}
}
