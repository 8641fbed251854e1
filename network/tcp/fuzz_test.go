package tcp_test

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"

	"github.com/simrt/simrt"
	"github.com/simrt/simrt/network/tcp"
)

// recvScript is one fuzz input decoded: the configuration of the
// receiving network, the chunks the sender sends (each Send a group of
// chunks), and the reads the receiver makes.
type recvScript struct {
	readBuf     int // tcp.Config.ReadBufferSize
	maxRecv     int // tcp.Config.MaxRecvSize
	sends       [][][]byte
	recvs       []recvOp
	totalToSend int
}

type recvOp struct {
	n    int
	peek int // Peek(peek) before the Recv
}

// decodeRecvScript turns arbitrary bytes into a script: byte 0 picks the
// buffer size (its low bit is unused: it picked a path that is gone, and
// the seeds keep their meaning), byte 1 the maximum receive size, then each
// triple is a send (size, chunk count) and a recv (size scaled by byte 0).
func decodeRecvScript(data []byte) recvScript {
	var s recvScript
	if len(data) < 2 {
		return recvScript{readBuf: 1, maxRecv: 1}
	}
	s.readBuf = 1 + int(data[0]>>1)%64 // tiny buffers: every Recv grows them
	if data[0]&0x80 != 0 {
		s.readBuf = 64 << 10
	}
	s.maxRecv = 1 + int(data[1])*97 // 1 .. about 24 KiB
	scale := 1 + int(data[0]>>4)
	data = data[2:]
	var pattern byte
	for len(data) >= 3 && len(s.recvs) < 64 {
		size, parts, recv := int(data[0])*scale, 1+int(data[1]%3), int(data[2])*scale
		data = data[3:]
		var send [][]byte
		for range parts {
			c := make([]byte, size/parts)
			for i := range c {
				pattern++
				c[i] = pattern
			}
			send = append(send, c)
			s.totalToSend += len(c)
		}
		s.sends = append(s.sends, send)
		s.recvs = append(s.recvs, recvOp{n: recv, peek: size})
	}
	return s
}

// FuzzRecvAgainstModel checks tcp's framing against a byte-string model:
// whatever the send chunking, vectored sends, read buffer size and Recv
// sizes, the bytes received are the bytes sent, in order; Peek shows a
// prefix of what is left; a Recv longer than what is left fails with
// ErrRecvFailed once the sender has closed, a Recv above MaxRecvSize with
// ErrRecvTooLarge, and the stream is then poisoned. Both the goroutine
// path (no runtime) and the task path are exercised.
func FuzzRecvAgainstModel(f *testing.F) {
	f.Add([]byte{0x00, 0x10, 10, 0, 10, 20, 2, 5, 1, 0, 200})
	f.Add([]byte{0x81, 0xff, 255, 2, 1, 255, 1, 255, 3, 0, 0, 9, 1, 100})
	f.Add([]byte{0xf3, 0x04, 200, 1, 255, 0, 0, 1, 255, 2, 255})
	f.Add([]byte{0x7e, 0x01, 1, 0, 1, 1, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		runRecvScript(t, decodeRecvScript(data))
	})
}

// runRecvScript plays s over a loopback connection: a goroutine sends
// (without a runtime, so that it never depends on the receiver's), the
// calling goroutine receives and compares with the model. It reports with
// Error, as it may run on a task's goroutine.
func runRecvScript(t *testing.T, s recvScript) {
	recvNet := tcp.New(tcp.Config{ReadBufferSize: s.readBuf, MaxRecvSize: s.maxRecv})
	sendNet := tcp.New(tcp.Config{})
	l, err := recvNet.Bind(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Error(err)
		return
	}
	defer l.Close()
	si, st, err := sendNet.Dial(l.Addr())
	if err != nil {
		t.Error(err)
		return
	}
	defer st.Close()
	_, psi, pst, err := l.Accept()
	if err != nil {
		si.Close()
		t.Error(err)
		return
	}
	sent := make(chan error, 1)
	go func() {
		defer si.Close() // the receiver then sees the end of the stream
		for _, bufs := range s.sends {
			if err := si.Send(bufs...); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()

	var model []byte // everything the sender sends, in order
	for _, bufs := range s.sends {
		for _, b := range bufs {
			model = append(model, b...)
		}
	}
	off := 0 // model[off:] is still to be received
	failed := false
	for i, op := range s.recvs {
		left := model[off:]
		if p := pst.Peek(op.peek); !bytes.HasPrefix(left, p) {
			t.Errorf("op %d: Peek(%d) = %d bytes, not a prefix of the %d left", i, op.peek, len(p), len(left))
			break
		}
		b, err := pst.Recv(op.n)
		switch {
		case op.n > s.maxRecv:
			if !errors.Is(err, simrt.ErrRecvTooLarge) || !errors.Is(err, simrt.ErrRecvFailed) {
				t.Errorf("op %d: Recv(%d) above MaxRecvSize %d: %v, want ErrRecvTooLarge", i, op.n, s.maxRecv, err)
			}
			failed = true
		case op.n > len(left):
			if !errors.Is(err, simrt.ErrRecvFailed) {
				t.Errorf("op %d: Recv(%d) with %d bytes left before the end: %v, want ErrRecvFailed", i, op.n, len(left), err)
			}
			failed = true
		case err != nil:
			t.Errorf("op %d: Recv(%d) with %d bytes left: %v", i, op.n, len(left), err)
			failed = true
		case !bytes.Equal(b, left[:op.n]):
			t.Errorf("op %d: Recv(%d) returned bytes other than those sent at offset %d", i, op.n, off)
			failed = true
		default:
			off += op.n
		}
		if failed {
			break
		}
	}
	if failed {
		if _, err := pst.Recv(0); !errors.Is(err, simrt.ErrClosed) {
			t.Errorf("Recv after a failed Recv: %v, want ErrClosed", err)
		}
	}
	pst.Close()
	psi.Close() // the socket is closed (reset): a sender still blocked fails now
	if err := <-sent; err != nil && !failed && off == len(model) {
		t.Errorf("Send: %v", err)
	}
}
