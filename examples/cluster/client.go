package main

import (
	"encoding/binary"
	"errors"
	"net/netip"

	"github.com/simrt/simrt"
)

const maxFrame = 1 << 16

var errBadFrame = errors.New("cluster: malformed frame")

// writeFrame sends one frame: length u16 | op u8 | payload.
func writeFrame(s simrt.Sink, op byte, payload []byte) error {
	if 1+len(payload) >= maxFrame {
		return errBadFrame
	}
	return s.Send(binary.BigEndian.AppendUint16(nil, uint16(1+len(payload))), []byte{op}, payload)
}

// readFrame receives one frame.
func readFrame(s simrt.Stream) (byte, []byte, error) {
	h, err := s.Recv(2)
	if err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint16(h))
	if n == 0 {
		return 0, nil, errBadFrame
	}
	b, err := s.Recv(n)
	if err != nil {
		return 0, nil, err
	}
	return b[0], b[1:], nil
}

// Client talks to one node of the counter service over one connection.
type Client struct {
	sink   simrt.Sink
	stream simrt.Stream
}

// Dial connects to the node at addr.
func Dial(ctx simrt.Context, addr netip.AddrPort) (*Client, error) {
	sink, stream, err := ctx.Dial(addr)
	if err != nil {
		return nil, err
	}
	if err := sink.Send([]byte{helloClient}); err != nil {
		sink.Close()
		stream.Close()
		return nil, err
	}
	return &Client{sink: sink, stream: stream}, nil
}

// Bump adds one to the counter and returns its total as the node saw it
// once the bump was durable on its disk.
func (c *Client) Bump() (uint64, error) { return c.call(opBump) }

// Read returns the counter's total as the node sees it.
func (c *Client) Read() (uint64, error) { return c.call(opRead) }

func (c *Client) call(op byte) (uint64, error) {
	if err := writeFrame(c.sink, op, nil); err != nil {
		return 0, err
	}
	got, payload, err := readFrame(c.stream)
	if err != nil {
		return 0, err
	}
	if got != opTotal || len(payload) != 8 {
		return 0, errBadFrame
	}
	return binary.BigEndian.Uint64(payload), nil
}

// Close closes the connection.
func (c *Client) Close() {
	c.sink.Close()
	c.stream.Close()
}
