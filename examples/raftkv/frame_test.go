package main

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// sends is a simrt.Sink that keeps what each Send was given.
type sends [][][]byte

func (s *sends) Send(bufs ...[]byte) error {
	*s = append(*s, append([][]byte(nil), bufs...))
	return nil
}

func (s *sends) Close() error { return nil }

// TestSendFrameIsOneBuffer: a request or response frame goes out as one
// buffer, its big-endian length prefix and then its payload, and costs one
// allocation for the frame (and one for the call's buffer list).
func TestSendFrameIsOneBuffer(t *testing.T) {
	var s sends
	cmd := Command{Client: 1, Seq: 7, Kind: OpPut, Key: "x", Value: "v"}
	if err := sendFrame(&s, appendCommand(newFrame(), cmd)); err != nil {
		t.Fatal(err)
	}
	payload := appendCommand(nil, cmd)
	want := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	want = append(want, payload...)
	if len(s) != 1 || len(s[0]) != 1 || !bytes.Equal(s[0][0], want) {
		t.Fatalf("sent %q, want one Send of the one buffer %q", s, want)
	}
	var discard nopSink
	if a := testing.AllocsPerRun(100, func() { _ = sendFrame(discard, response{status: statusOK}.append(newFrame())) }); a > 2 {
		t.Errorf("sending a response frame: %.1f allocations, want at most 2", a)
	}
}

// nopSink is a simrt.Sink that drops everything.
type nopSink struct{}

func (nopSink) Send(...[]byte) error { return nil }
func (nopSink) Close() error         { return nil }
