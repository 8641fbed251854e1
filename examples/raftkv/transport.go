package main

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Every node listens on one port; the first byte a dialer sends says who
// it is.
const (
	nodePort    = 7000
	helloPeer   = 'P'
	helloClient = 'C'
	maxFrame    = 4 << 20
)

var errFrameTooLarge = errors.New("raftkv: frame too large")

// nodeHost is the simulated address of node id (1-based).
func nodeHost(id uint64) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, byte(id)}) }

// nodeAddr is where node id listens.
func nodeAddr(id uint64) netip.AddrPort { return netip.AddrPortFrom(nodeHost(id), nodePort) }

// clientHost is the simulated address of client i (0-based).
func clientHost(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}) }

// newFrame returns an empty frame: room for the 4-byte big-endian length
// prefix, for the payload to be appended after it.
func newFrame() []byte { return make([]byte, 4, 64) }

// sendFrame fills in the length prefix of f (a newFrame with its payload
// appended) and sends it, prefix and payload in one buffer.
func sendFrame(s simrt.Sink, f []byte) error {
	binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	return s.Send(f)
}

// frameReader receives length-prefixed frames. When several whole frames
// have already arrived, it takes them with one Recv, so a burst of raft
// messages costs one receive instead of two per frame.
type frameReader struct {
	s   simrt.Stream
	buf []byte // whole frames received but not yet returned
}

// next returns the next frame.
func (r *frameReader) next() ([]byte, error) {
	if len(r.buf) == 0 {
		p := r.s.Peek(64 << 10)
		k := 0
		for k+4 <= len(p) {
			n := int(binary.BigEndian.Uint32(p[k:]))
			if n > maxFrame || k+4+n > len(p) {
				break
			}
			k += 4 + n
		}
		if k == 0 {
			return readFrame(r.s)
		}
		b, err := r.s.Recv(k)
		if err != nil {
			return nil, err
		}
		r.buf = b
	}
	n := int(binary.BigEndian.Uint32(r.buf))
	f := r.buf[4 : 4+n]
	r.buf = r.buf[4+n:]
	return f, nil
}

// readFrame receives one length-prefixed frame.
func readFrame(s simrt.Stream) ([]byte, error) {
	h, err := s.Recv(4)
	if err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(h)
	if n > maxFrame {
		return nil, errFrameTooLarge
	}
	return s.Recv(int(n))
}

// conn is the two halves of one connection.
type conn struct {
	sink   simrt.Sink
	stream simrt.Stream
}

func (c conn) close() {
	c.sink.Close()
	c.stream.Close()
}

// listen binds the node's address and hands every accepted connection to
// accepted. A killed process's listener is closed with it; the restarted
// process binds the address again.
func listen(ctx simrt.Context, id uint64, accepted *simrt.Chan[conn]) {
	l, err := ctx.Bind(nodeAddr(id))
	if err != nil {
		panic("raftkv: bind: " + err.Error())
	}
	defer l.Close()
	for {
		_, sink, stream, err := l.Accept()
		if err != nil {
			return
		}
		if accepted.Send(ctx, conn{sink, stream}) != nil {
			sink.Close()
			stream.Close()
			return
		}
	}
}

// serveConns starts a handler task for each accepted connection: a peer's
// connection carries raft messages into the inbox, a client's carries
// requests and their responses.
func (n *node) serveConns(ctx simrt.Context, accepted *simrt.Chan[conn]) {
	for {
		c, ok := accepted.Recv(ctx)
		if !ok {
			return
		}
		simrt.Spawn(ctx, func(ctx simrt.Context) struct{} {
			defer c.close()
			hello, err := c.stream.Recv(1)
			if err != nil {
				return struct{}{}
			}
			switch hello[0] {
			case helloPeer:
				n.servePeer(ctx, c)
			case helloClient:
				n.serveClient(ctx, c)
			}
			return struct{}{}
		})
	}
}

// servePeer steps every raft message a peer sends into the inbox.
func (n *node) servePeer(ctx simrt.Context, c conn) {
	r := frameReader{s: c.stream}
	var boxes messageBoxes
	for {
		f, err := r.next()
		if err != nil {
			return
		}
		m, err := decodeMessageFrom(f, &boxes)
		if err != nil {
			return
		}
		if n.inbox.Send(ctx, event{msg: m}) != nil {
			return
		}
	}
}

// serveClient answers a client's requests one at a time.
func (n *node) serveClient(ctx simrt.Context, c conn) {
	for {
		f, err := readFrame(c.stream)
		if err != nil {
			return
		}
		cmd, err := decodeCommand(f)
		if err != nil {
			return
		}
		reply := simrt.NewOneshot[response]()
		if n.inbox.Send(ctx, event{req: &request{cmd: cmd, reply: reply}}) != nil {
			return
		}
		resp, err := reply.Recv(ctx)
		if err != nil {
			return
		}
		if sendFrame(c.sink, resp.append(newFrame())) != nil {
			return
		}
	}
}

// peerLink sends one node's raft messages to one peer over a connection it
// dials and redials. Messages wait in a bounded queue; when the queue is
// full, or the peer cannot be reached, they are dropped, as raft allows.
type peerLink struct {
	to  uint64
	out *simrt.Chan[[]byte]
	// arena is where send encodes frames, one after the other: a frame
	// costs no allocation of its own. A frame is never written again once
	// queued, and an arena is dropped, not reused, when full, so a queued
	// frame stays valid for as long as it is referenced.
	arena []byte
}

const (
	peerQueue     = 256
	frameArena    = 4 << 10 // bytes of each arena send carves frames from
	minFrameRoom  = 256     // a new arena starts when less than this is left
	redialBackoff = 50 * time.Millisecond
	maxBatch      = 64
)

func newPeerLink(to uint64) *peerLink {
	return &peerLink{to: to, out: simrt.NewChan[[]byte](peerQueue)}
}

// send queues a message as a whole frame, length prefix included, or
// drops it when the queue is full.
func (p *peerLink) send(m *pb.Message) {
	if cap(p.arena)-len(p.arena) < minFrameRoom {
		p.arena = make([]byte, 0, frameArena)
	}
	room := p.arena[len(p.arena):]
	f := appendMessage(append(room, 0, 0, 0, 0), m)
	binary.BigEndian.PutUint32(f, uint32(len(f)-4))
	if len(f) <= cap(room) { // it fit: append wrote it in the arena
		p.arena = p.arena[:len(p.arena)+len(f)]
		f = f[:len(f):len(f)]
	}
	p.out.TrySend(f)
}

// run is the sender task: it batches queued frames into one Send and tells
// the node when the peer is unreachable.
func (p *peerLink) run(ctx simrt.Context, n *node) {
	var c *conn
	defer func() {
		if c != nil {
			c.close()
		}
	}()
	bufs := make([][]byte, 0, maxBatch)
	for {
		f, ok := p.out.Recv(ctx)
		if !ok {
			return
		}
		bufs = append(bufs[:0], f)
		for len(bufs) < maxBatch {
			f, ok := p.out.TryRecv()
			if !ok {
				break
			}
			bufs = append(bufs, f)
		}
		if c == nil {
			sink, stream, err := ctx.Dial(nodeAddr(p.to))
			if err != nil {
				n.inbox.TrySend(event{unreachable: p.to})
				ctx.Sleep(redialBackoff)
				continue
			}
			stream.Close() // the peer answers over its own connection
			c = &conn{sink: sink, stream: stream}
			if sink.Send([]byte{helloPeer}) != nil {
				c.close()
				c = nil
				continue
			}
		}
		if c.sink.Send(bufs...) != nil {
			c.close()
			c = nil
			n.inbox.TrySend(event{unreachable: p.to})
		}
	}
}

// Response statuses.
const (
	statusOK       = 1 // Result holds the outcome
	statusRedirect = 2 // not the leader; Leader is a hint (0: unknown)
	statusRetry    = 3 // the request was dropped; try again
)

// response is a node's answer to a client request.
type response struct {
	status uint8
	leader uint64
	result Result
}

func (r response) append(b []byte) []byte {
	b = append(b, r.status)
	b = binary.BigEndian.AppendUint64(b, r.leader)
	ok := byte(0)
	if r.result.OK {
		ok = 1
	}
	b = append(b, ok)
	return appendString(b, r.result.Value)
}

var errBadResponse = errors.New("raftkv: malformed response")

func decodeResponse(b []byte) (response, error) {
	var r response
	if len(b) < 10 {
		return r, errBadResponse
	}
	r.status = b[0]
	r.leader = binary.BigEndian.Uint64(b[1:])
	r.result.OK = b[9] == 1
	v, _, ok := readString(b[10:])
	if !ok {
		return r, errBadResponse
	}
	r.result.Value = v
	return r, nil
}
