package deterministic

import (
	"encoding/binary"
	"io"
	"math/bits"
	"math/rand/v2"

	"github.com/simrt/simrt/deterministic/decision"
)

// stream is a run's one source of decisions: the seeded generator, a
// position counter, and the optional replay and recording. Every random
// choice of the simulator goes through next.
type stream struct {
	src    rand.Source
	chacha *rand.ChaCha8 // src, when it is the default generator (a direct call)
	pos    uint64
	slow   bool // replay or record set
	replay decision.Decider
	record *decision.Stream
	// readBuf and readLen keep the bytes of a draw that Read did not use,
	// as rand.ChaCha8.Read does, so Read's output is the generator's own.
	readBuf [8]byte
	readLen int
}

func newStream(src rand.Source, replay decision.Decider, record *decision.Stream) *stream {
	s := &stream{src: src}
	s.chacha, _ = src.(*rand.ChaCha8)
	s.setIO(replay, record)
	return s
}

// setIO sets the replay and recording (a resumed checkpoint takes its
// own config's).
func (s *stream) setIO(replay decision.Decider, record *decision.Stream) {
	s.replay, s.record = replay, record
	s.slow = replay != nil || record != nil
}

// next makes one decision of kind k.
func (s *stream) next(k decision.Kind) uint64 {
	var v uint64
	if s.chacha != nil {
		v = s.chacha.Uint64()
	} else {
		v = s.src.Uint64()
	}
	if s.slow {
		v = s.decide(k, v)
	}
	s.pos++
	return v
}

func (s *stream) decide(k decision.Kind, v uint64) uint64 {
	if s.replay != nil {
		if r, ok := s.replay.Decide(s.pos, k); ok {
			v = r
		}
	}
	if s.record != nil {
		s.record.Decisions = append(s.record.Decisions, decision.Decision{Kind: k, Value: v})
	}
	return v
}

// bounded returns a uniform decision of kind k in [0, n) (Lemire's
// method), written out so the result is the same on every platform.
func (s *stream) bounded(k decision.Kind, n uint64) uint64 {
	hi, lo := bits.Mul64(s.next(k), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.next(k), n)
		}
	}
	return hi
}

// read fills p with decisions of kind k. With a generator that has a Read
// method (the default one), the bytes are the ones its Read would give;
// otherwise each 8 bytes come from a fresh draw.
func (s *stream) read(k decision.Kind, p []byte) {
	if _, ok := s.src.(io.Reader); !ok {
		for i := 0; i < len(p); i += 8 {
			v := s.next(k)
			for j := i; j < min(i+8, len(p)); j++ {
				p[j] = byte(v)
				v >>= 8
			}
		}
		return
	}
	if s.readLen > 0 {
		n := copy(p, s.readBuf[len(s.readBuf)-s.readLen:])
		s.readLen -= n
		p = p[n:]
	}
	for len(p) >= 8 {
		binary.LittleEndian.PutUint64(p, s.next(k))
		p = p[8:]
	}
	if len(p) > 0 {
		binary.LittleEndian.PutUint64(s.readBuf[:], s.next(k))
		copy(p, s.readBuf[:])
		s.readLen = 8 - len(p)
	}
}

// source is a rand.Source of decisions of one kind, for the models that
// draw through a *rand.Rand.
type source struct {
	s *stream
	k decision.Kind
}

func (s *source) Uint64() uint64 { return s.s.next(s.k) }
