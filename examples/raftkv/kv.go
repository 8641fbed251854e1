package main

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// OpKind names a client operation.
type OpKind uint8

const (
	// OpGet reads a key; a missing key reads as "".
	OpGet OpKind = iota + 1
	// OpPut writes a key.
	OpPut
	// OpCAS writes Value if the key holds Expect, and reports whether it did.
	OpCAS
)

// String names the kind.
func (k OpKind) String() string {
	switch k {
	case OpGet:
		return "get"
	case OpPut:
		return "put"
	case OpCAS:
		return "cas"
	}
	return "op?"
}

// Command is one client operation, identified by its client and the
// client's sequence number, so that a retried command applies once.
type Command struct {
	Client uint32
	Seq    uint64
	Kind   OpKind
	Key    string
	Value  string // put, cas: the new value
	Expect string // cas: the value the key must hold
}

// String renders the operation for logs and the visualisation.
func (c Command) String() string {
	switch c.Kind {
	case OpGet:
		return fmt.Sprintf("get(%s)", c.Key)
	case OpPut:
		return fmt.Sprintf("put(%s, %q)", c.Key, c.Value)
	default:
		return fmt.Sprintf("cas(%s, %q -> %q)", c.Key, c.Expect, c.Value)
	}
}

// Result is what an operation returned.
type Result struct {
	Value string // get: the value read
	OK    bool   // cas: whether it swapped; put, get: true
}

var errShortCommand = errors.New("raftkv: short command")

// appendCommand appends the encoding of c to b.
func appendCommand(b []byte, c Command) []byte {
	b = binary.BigEndian.AppendUint32(b, c.Client)
	b = binary.BigEndian.AppendUint64(b, c.Seq)
	b = append(b, byte(c.Kind))
	b = appendString(b, c.Key)
	b = appendString(b, c.Value)
	return appendString(b, c.Expect)
}

// decodeCommand decodes what appendCommand wrote.
func decodeCommand(b []byte) (Command, error) {
	var c Command
	if len(b) < 13 {
		return c, errShortCommand
	}
	c.Client = binary.BigEndian.Uint32(b)
	c.Seq = binary.BigEndian.Uint64(b[4:])
	c.Kind = OpKind(b[12])
	b = b[13:]
	var ok1, ok2, ok3 bool
	c.Key, b, ok1 = readString(b)
	c.Value, b, ok2 = readString(b)
	c.Expect, _, ok3 = readString(b)
	if !ok1 || !ok2 || !ok3 {
		return c, errShortCommand
	}
	return c, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

func readString(b []byte) (string, []byte, bool) {
	if len(b) < 2 {
		return "", b, false
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+n {
		return "", b, false
	}
	return string(b[2 : 2+n]), b[2+n:], true
}

// session is the last command a client applied and its result: a retry of
// that command returns the result again instead of applying twice.
type session struct {
	seq    uint64
	result Result
}

// store is the replicated state machine: the key-value map and one session
// per client. It is rebuilt from the log at every start, and only ever
// looked up, never iterated.
type store struct {
	data     map[string]string
	sessions []session // by client id
}

func newStore(clients int) *store {
	return &store{data: make(map[string]string), sessions: make([]session, clients)}
}

// apply applies a committed write command once per (client, seq) and
// returns its result; a command at or below the client's last sequence
// number is a duplicate and returns the recorded result (for the last one).
func (s *store) apply(c Command) Result {
	if int(c.Client) >= len(s.sessions) {
		return Result{}
	}
	ss := &s.sessions[c.Client]
	if c.Seq <= ss.seq {
		return ss.result
	}
	var r Result
	switch c.Kind {
	case OpPut:
		s.data[c.Key] = c.Value
		r.OK = true
	case OpCAS:
		if s.data[c.Key] == c.Expect {
			s.data[c.Key] = c.Value
			r.OK = true
		}
	}
	ss.seq, ss.result = c.Seq, r
	return r
}

// get reads a key.
func (s *store) get(key string) Result { return Result{Value: s.data[key], OK: true} }
