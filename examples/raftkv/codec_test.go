package main

import (
	"math/rand/v2"
	"testing"

	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// TestCodecRoundTrip checks the wire form against raftpb's own: seeded
// random messages survive encoding and decoding unchanged.
func TestCodecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opt := func(p *uint64) *uint64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		return p
	}
	for i := range 10_000 {
		m := &pb.Message{
			Type: pb.MessageType(rng.IntN(20)).Enum(), To: opt(new(rng.Uint64())), From: opt(new(rng.Uint64N(10))),
			Term: opt(new(rng.Uint64N(1000))), LogTerm: opt(new(rng.Uint64N(1000))), Index: opt(new(rng.Uint64())),
			Commit: opt(new(rng.Uint64N(1 << 20))), Vote: opt(new(rng.Uint64N(5))), RejectHint: opt(new(rng.Uint64N(5))),
		}
		if rng.IntN(2) == 0 {
			m.Reject = new(true)
		}
		if rng.IntN(3) == 0 {
			m.Context = []byte{byte(i), 1, 2}
		}
		for range rng.IntN(4) {
			e := &pb.Entry{Term: opt(new(rng.Uint64N(100))), Index: opt(new(rng.Uint64N(1000))), Type: pb.EntryNormal.Enum()}
			if rng.IntN(2) == 0 {
				e.Data = []byte("some command")
			}
			m.Entries = append(m.Entries, e)
		}
		got, err := decodeMessage(appendMessage(nil, m))
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !proto.Equal(got, m) {
			t.Fatalf("message %d: got %v, want %v", i, got, m)
		}
	}
}

// TestCodecRejectsGarbage checks that a truncated message is an error.
func TestCodecRejectsGarbage(t *testing.T) {
	m := &pb.Message{Type: pb.MsgApp.Enum(), Term: new(uint64(3)), Entries: []*pb.Entry{{Index: new(uint64(4)), Data: []byte("x")}}}
	b := appendMessage(nil, m)
	for n := range len(b) {
		if _, err := decodeMessage(b[:n]); err == nil {
			t.Fatalf("decoding %d of %d bytes succeeded", n, len(b))
		}
	}
}

// TestCodecBoxesFromSlabs checks that messages decoded through one
// messageBoxes cost one allocation per slab, not per message, and stay
// independent: decoding later messages changes no earlier one.
func TestCodecBoxesFromSlabs(t *testing.T) {
	var want []*pb.Message
	for i := range 3 * boxSlab {
		want = append(want, &pb.Message{Type: pb.MsgHeartbeat.Enum(), To: new(uint64(i%5 + 1)), From: new(uint64(2)), Term: new(uint64(i)), Commit: new(uint64(10 * i))})
	}
	var boxes messageBoxes
	var got []*pb.Message
	for _, m := range want {
		d, err := decodeMessageFrom(appendMessage(nil, m), &boxes)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Fatalf("message %d: got %v after decoding the others, want %v", i, got[i], want[i])
		}
	}
	b := appendMessage(nil, want[1])
	if a := testing.AllocsPerRun(8*boxSlab, func() { _, _ = decodeMessageFrom(b, &boxes) }); a > 1.5/boxSlab {
		t.Errorf("decoding a heartbeat: %.3f allocations per message, want one per %d messages", a, boxSlab)
	}
}
