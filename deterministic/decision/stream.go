package decision

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/simrt/simrt"
)

//go:generate stringer -type=Kind,HitKind -linecomment -output=kind_string.go

// Kind says what a decision of the stream decides. A replayed decision is
// used only where the run asks for the same kind (see Decider).
type Kind uint8

// The kinds of decision a run makes.
const (
	// KindSchedule orders the ready list of an executor iteration.
	KindSchedule Kind = iota + 1 // schedule
	// KindYield decides whether a task yields at a scheduling point.
	KindYield // yield
	// KindSpawn decides whether a spawned task runs before its creator
	// continues.
	KindSpawn // spawn
	// KindSelect decides which case a Select tries first.
	KindSelect // select
	// KindFault is a draw of the storage and network fault models: faults,
	// delays, losses.
	KindFault // fault
	// KindRand is a task's own draw (Context.Rand, Context.Read).
	KindRand // rand
	// KindPriority is a draw of the PCT scheduler: a task's priority, a
	// priority change point.
	KindPriority // priority
	// KindBuggify is a draw of simrt.Buggify: whether a site fires.
	KindBuggify // buggify
	maxKind     = KindBuggify
)

// Decision is one choice of a run: its kind and the 64 random bits it was
// made from.
type Decision struct {
	Kind  Kind
	Value uint64
}

// Decider supplies a run's decisions ahead of the seeded generator (see
// deterministic.Config.Replay). The executor asks it once per choice, with the choice's
// position in the stream (0 for the first) and its kind; a Decider that
// returns false leaves that choice to the seeded generator. The generator
// advances either way, so a run whose Decider stops answering goes on
// exactly as the seed alone would have taken it from there.
//
// A Stream is a Decider that replays a recorded run; fuzzers, branch
// explorers and shrinkers supply their own.
type Decider interface {
	Decide(pos uint64, kind Kind) (value uint64, ok bool)
}

// Stream is the recorded decision stream of a run: every choice, in order.
// Record a run into one with deterministic.Config.Hooks.Record, save it with WriteTo or
// WriteFile, and replay it with deterministic.Config.Replay. Replay is lenient: past the
// end of the stream, and at a position where the run asks for another
// kind of decision than the recorded one (the program changed), the
// seeded generator decides, so a recorded reproduction keeps working while
// the code is edited. A run with the same seed, replaying its own stream,
// is the same run.
type Stream struct {
	// Test and Package name the test that recorded the stream (simtest
	// sets them: the test name a replay command runs, and the import path
	// of its package), so that a replay by another test can say so. Both
	// are "" when unknown: in a stream made by hand, by a shrinker or
	// explorer of its own, or read from a file of format 1.
	Test, Package string
	Decisions     []Decision
}

// Decide implements Decider: the recorded decision at pos, if it has the
// kind asked for.
func (s *Stream) Decide(pos uint64, kind Kind) (uint64, bool) {
	if pos >= uint64(len(s.Decisions)) {
		return 0, false
	}
	d := s.Decisions[pos]
	if d.Kind != kind {
		return 0, false
	}
	return d.Value, true
}

// The header line of a stream file; the digit is the format version.
// Format 1 is the header line and the records. Format 2 adds, between them,
// fields naming the recording test, one per line ("test" or "package", a
// space and a Go-quoted string), ended by an empty line.
const (
	streamMagic   = "simrt-stream 1\n"
	streamMagicV2 = "simrt-stream 2\n"
)

// Limits of a format-2 header, so that a damaged file is an error, not a
// huge allocation.
const (
	maxStreamFields = 64
	maxStreamField  = 4 << 10
)

// ErrBadStream is returned (wrapped) for a stream file that cannot be read.
var ErrBadStream = errors.New("decision: malformed decision stream")

// WriteTo writes the stream in its file format: a header line, then one
// record per decision (a kind byte and the value, 8 bytes little-endian).
// A stream with a Test or Package is written in format 2, with those
// fields between the header line and the records; one without is written
// in format 1, which every build reads.
func (s *Stream) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int
	if s.Test == "" && s.Package == "" {
		n, _ = bw.WriteString(streamMagic)
	} else {
		n, _ = bw.WriteString(streamMagicV2)
		for _, f := range [...]struct{ key, value string }{{"test", s.Test}, {"package", s.Package}} {
			if f.value != "" {
				m, _ := bw.WriteString(f.key + " " + strconv.Quote(f.value) + "\n")
				n += m
			}
		}
		m, _ := bw.WriteString("\n")
		n += m
	}
	var rec [9]byte
	for _, d := range s.Decisions {
		rec[0] = byte(d.Kind)
		binary.LittleEndian.PutUint64(rec[1:], d.Value)
		m, _ := bw.Write(rec[:])
		n += m
	}
	err := bw.Flush()
	return int64(n), err
}

// WriteFile saves the stream to the file at path.
func (s *Stream) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := s.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadStream reads a stream written by WriteTo, of either format (a file
// of format 1 has no Test or Package). A file cut short inside a record
// yields the complete records before the cut and an error wrapping
// ErrBadStream; an unknown kind, a missing header or a malformed field is
// an error too. A format-2 field of another name than test and package is
// skipped, for the formats to come.
func ReadStream(r io.Reader) (*Stream, error) {
	br := bufio.NewReader(r)
	s := &Stream{}
	if err := readStreamHeader(br, s); err != nil {
		return nil, err
	}
	var rec [9]byte
	for {
		_, err := io.ReadFull(br, rec[:])
		if err == io.EOF {
			return s, nil
		}
		if err == io.ErrUnexpectedEOF {
			return s, fmt.Errorf("%w: truncated record after %d decisions", ErrBadStream, len(s.Decisions))
		}
		if err != nil {
			return s, err
		}
		k := Kind(rec[0])
		if k < 1 || k > maxKind {
			return s, fmt.Errorf("%w: unknown kind %d at decision %d", ErrBadStream, rec[0], len(s.Decisions))
		}
		s.Decisions = append(s.Decisions, Decision{Kind: k, Value: binary.LittleEndian.Uint64(rec[1:])})
	}
}

// readStreamHeader reads the header line, and the fields of format 2 into
// s, saying what is wrong with a bad one: a read error (a directory, say),
// another version of the format, or not a stream at all.
func readStreamHeader(br *bufio.Reader, s *Stream) error {
	var magic [len(streamMagic)]byte
	n, err := io.ReadFull(br, magic[:])
	got := string(magic[:n])
	switch got {
	case streamMagic:
		return nil
	case streamMagicV2:
		return readStreamFields(br, s)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return fmt.Errorf("%w: reading the header: %w", ErrBadStream, err)
	}
	const prefix = "simrt-stream "
	if strings.HasPrefix(got, prefix) && n == len(magic) {
		version := got[len(prefix):]
		if !strings.HasSuffix(version, "\n") {
			rest, _ := br.ReadString('\n')
			version += rest
		}
		version = strings.TrimSuffix(version, "\n")
		if len(version) > 20 {
			version = version[:20] + "..."
		}
		return fmt.Errorf("%w: unsupported version %q (this build reads 1 and 2)", ErrBadStream, version)
	}
	return fmt.Errorf("%w: not a decision stream (its header is %q, want %q)", ErrBadStream, got, streamMagic)
}

// readStreamFields reads the fields of a format-2 header, up to the empty
// line that ends them.
func readStreamFields(br *bufio.Reader, s *Stream) error {
	for i := 0; ; i++ {
		if i > maxStreamFields {
			return fmt.Errorf("%w: more than %d header fields", ErrBadStream, maxStreamFields)
		}
		line, err := readStreamLine(br)
		if err != nil {
			return fmt.Errorf("%w: header field %d: %w", ErrBadStream, i+1, err)
		}
		if line == "" {
			return nil
		}
		key, quoted, _ := strings.Cut(line, " ")
		value, err := strconv.Unquote(quoted)
		if err != nil {
			return fmt.Errorf("%w: header field %d (%.40q): want a name, a space and a quoted string", ErrBadStream, i+1, line)
		}
		switch key {
		case "test":
			s.Test = value
		case "package":
			s.Package = value
		}
	}
}

// readStreamLine reads one header line of at most maxStreamField bytes,
// without its newline.
func readStreamLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		c, err := br.ReadByte()
		switch {
		case err == io.EOF:
			return "", errors.New("the header ends before its empty line")
		case err != nil:
			return "", err
		case c == '\n':
			return string(b), nil
		case len(b) == maxStreamField:
			return "", fmt.Errorf("a line longer than %d bytes", maxStreamField)
		}
		b = append(b, c)
	}
}

// ReadStreamFile reads the stream file at path (see ReadStream); a path
// that is a directory is an error saying so.
func ReadStreamFile(path string) (*Stream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a directory", ErrBadStream, path)
	}
	defer f.Close()
	return ReadStream(f)
}

// Bytes is a Decider fed by a byte string, for coverage-guided fuzzing:
// the fuzzer's mutations of the bytes become changes of the run's
// schedule, faults and draws. The first 8 bytes (little-endian, missing
// ones zero) are the seed the run must use (see Seed); after them each
// decision consumes one byte b, and its value is b repeated in all eight
// bytes. So the choices that read a value's top bits (a choice among up to
// 256 options, a yield, fault or Buggify draw of probability p, which
// happens for b below about 256·p) and those that mask its low bits (a
// task's Rand().IntN(256)) both follow the byte. When the bytes run out
// the Decider stops answering and the seeded generator decides, so every
// input, even an empty one, is a complete run.
type Bytes struct {
	seed uint64
	data []byte
}

// BytesSeed is how many leading bytes of a Bytes input are the seed.
const BytesSeed = 8

// NewBytes returns the Decider fed by data. The run must use its Seed.
func NewBytes(data []byte) *Bytes {
	var head [BytesSeed]byte
	n := copy(head[:], data)
	return &Bytes{seed: binary.LittleEndian.Uint64(head[:]), data: data[n:]}
}

// Seed returns the seed encoded in the input's first 8 bytes: set it as
// deterministic.Config.Seed, so that the decisions after the input's end come from a
// generator the input chose.
func (b *Bytes) Seed() uint64 { return b.seed }

// Len returns how many decisions the input answers.
func (b *Bytes) Len() int { return len(b.data) }

// Decide implements Decider: the input's byte at pos, repeated.
func (b *Bytes) Decide(pos uint64, _ Kind) (uint64, bool) {
	if pos >= uint64(len(b.data)) {
		return 0, false
	}
	return uint64(b.data[pos]) * 0x0101010101010101, true
}

// HitKind says what a Hit reached.
type HitKind uint8

// The goals a Hit reports.
const (
	// HitSometimes: a simrt.Sometimes property was true.
	HitSometimes HitKind = iota + 1 // sometimes
	// HitReachable: a simrt.Reachable property was reached.
	HitReachable // reachable
	// HitBuggify: a simrt.Buggify site fired.
	HitBuggify // buggify
)

// Hit is the first time in a run that a goal was reached: a Sometimes
// property true, a Reachable property reached, a Buggify site fired.
type Hit struct {
	Kind HitKind
	// Name is the property's message or the Buggify site's name.
	Name string
	// Site is the call's place in the source.
	Site simrt.CallSite
	// Position is how many decisions the run had made at the hit (the
	// Buggify draw that fired included): replaying the first Position
	// decisions of the run's stream reaches the same hit.
	Position uint64
}

// HitObserver is a Decider that also wants to know when the run first
// reaches each goal (see Hit); the branching explorer is one. The runtime
// calls FirstHit, between two decisions, once per goal and run, in the
// order the run reaches them. A run whose deterministic.Config.Replay is not a
// HitObserver pays nothing for the notification, and the notification
// changes nothing in the run.
type HitObserver interface {
	Decider
	FirstHit(h Hit)
}
