// Package replication is a replicated register over the network, the
// example of simtest.Explore with a simulated network that the README
// shows: three replicas keep a value, and clients read and write it
// through majorities (the ABD algorithm), so that a write survives any
// one replica being cut off and every read returns the latest write.
//
// The code takes a simrt.Context and never learns which runtime it runs
// on; register_test.go sweeps seeds in the simulator while it partitions
// the network, and runs the same code over TCP on the loopback interface.
package replication

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/simrt/simrt"
)

// Version orders writes: a write counter in the high bits and the writer's
// ID in the low 8, so that two writers never pick the same version.
type Version uint64

func (v Version) next(writer uint8) Version { return (v>>8+1)<<8 | Version(writer) }

// Replica holds one copy of the register.
type Replica struct {
	mu      simrt.Mutex // the connections' tasks share the value
	version Version
	value   string
}

// Serve answers requests on l until ctx's task is aborted or l fails,
// then closes l. Each connection carries one request and its reply.
func (r *Replica) Serve(ctx simrt.Context, l simrt.Listener) error {
	defer l.Close()
	conns := ctx.Child("conn")
	for {
		_, sink, stream, err := l.Accept()
		if err != nil {
			return err
		}
		simrt.Spawn(conns, func(ctx simrt.Context) error {
			defer sink.Close()
			defer stream.Close()
			return r.answer(ctx, sink, stream)
		})
	}
}

const (
	opRead  = 'r'
	opWrite = 'w'
)

// answer handles one request: a read returns the replica's version and
// value; a write stores its value if its version is newer, and returns
// the replica's version and value afterwards.
func (r *Replica) answer(ctx simrt.Context, sink simrt.Sink, stream simrt.Stream) error {
	op, ver, val, err := readMessage(stream)
	if err != nil {
		return err
	}
	r.mu.Lock(ctx)
	if op == opWrite && ver > r.version {
		r.version, r.value = ver, val
	}
	ver, val = r.version, r.value
	r.mu.Unlock()
	return sink.Send(message(op, ver, val))
}

// message encodes op, version and value: 1 + 8 + 2 bytes, then the value.
func message(op byte, v Version, value string) []byte {
	b := append([]byte{op}, binary.BigEndian.AppendUint64(nil, uint64(v))...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(value)))
	return append(b, value...)
}

func readMessage(s simrt.Stream) (op byte, v Version, value string, err error) {
	hdr, err := s.Recv(11)
	if err != nil {
		return 0, 0, "", err
	}
	body, err := s.Recv(int(binary.BigEndian.Uint16(hdr[9:])))
	if err != nil {
		return 0, 0, "", err
	}
	return hdr[0], Version(binary.BigEndian.Uint64(hdr[1:9])), string(body), nil
}

// ErrNoQuorum means fewer than a majority of the replicas answered.
var ErrNoQuorum = errors.New("replication: no majority of replicas answered")

// Client reads and writes the register through majorities of Replicas.
type Client struct {
	// ID tells this client's writes apart from other clients'; give every
	// client its own.
	ID uint8
	// Replicas are the replicas' addresses.
	Replicas []netip.AddrPort
	// Timeout bounds each request to one replica. Zero means 100ms.
	Timeout time.Duration
	// Quorum is how many replies an operation waits for. Zero means a
	// majority of Replicas; anything less is a bug that the tests find.
	Quorum int
}

// Put writes value: it learns the highest version from a majority, then
// stores value with a higher version on a majority.
func (c *Client) Put(ctx simrt.Context, value string) error {
	replies, err := c.call(ctx, opRead, 0, "")
	if err != nil {
		return err
	}
	_, err = c.call(ctx, opWrite, newest(replies).version.next(c.ID), value)
	return err
}

// Get reads the value: the newest of a majority's, written back to a
// majority before Get returns it, so that no later Get returns an older
// one.
func (c *Client) Get(ctx simrt.Context) (string, error) {
	replies, err := c.call(ctx, opRead, 0, "")
	if err != nil {
		return "", err
	}
	n := newest(replies)
	if _, err := c.call(ctx, opWrite, n.version, n.value); err != nil {
		return "", err
	}
	return n.value, nil
}

type reply struct {
	version Version
	value   string
	err     error
}

func newest(rs []reply) reply {
	var n reply
	for _, r := range rs {
		if r.version > n.version {
			n = r
		}
	}
	return n
}

// call sends the request to every replica at once and returns as soon as
// a quorum has replied; the requests still out are aborted.
func (c *Client) call(ctx simrt.Context, op byte, v Version, value string) ([]reply, error) {
	quorum := c.Quorum
	if quorum == 0 {
		quorum = len(c.Replicas)/2 + 1
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 100 * time.Millisecond
	}
	replies := simrt.NewChan[reply](len(c.Replicas))
	calls := make([]*simrt.Handle[struct{}], len(c.Replicas))
	for i, addr := range c.Replicas {
		calls[i] = simrt.Spawn(ctx.Child("call"), func(ctx simrt.Context) struct{} {
			var r reply
			r.err = simrt.Timeout(ctx, timeout, func() error {
				var err error
				r.version, r.value, err = request(ctx, addr, message(op, v, value))
				return err
			})
			replies.Send(ctx, r)
			return struct{}{}
		})
	}
	defer func() {
		for _, h := range calls {
			h.Abort()
		}
	}()
	var ok []reply
	var failed []error
	for len(ok) < quorum {
		r, _ := replies.Recv(ctx)
		if r.err != nil {
			if failed = append(failed, r.err); len(failed) > len(c.Replicas)-quorum {
				return nil, fmt.Errorf("%w: %d of %d failed: %w", ErrNoQuorum, len(failed), len(c.Replicas), errors.Join(failed...))
			}
			continue
		}
		ok = append(ok, r)
	}
	return ok, nil
}

// request sends msg to the replica at addr and returns its reply.
func request(ctx simrt.Context, addr netip.AddrPort, msg []byte) (Version, string, error) {
	sink, stream, err := ctx.Dial(addr)
	if err != nil {
		return 0, "", err
	}
	defer sink.Close()
	defer stream.Close()
	if err := sink.Send(msg); err != nil {
		return 0, "", err
	}
	_, v, val, err := readMessage(stream)
	return v, val, err
}
