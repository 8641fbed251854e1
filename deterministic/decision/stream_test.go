package decision

import (
	"bytes"
	"errors"
	"testing"
)

func TestReadStreamBadInput(t *testing.T) {
	good := &Stream{Decisions: []Decision{{KindYield, 1}, {KindRand, 2}}}
	var buf bytes.Buffer
	good.WriteTo(&buf)
	raw := buf.Bytes()
	for name, in := range map[string][]byte{
		"empty":     nil,
		"header":    []byte("not a stream at all\n"),
		"truncated": raw[:len(raw)-3],
		"kind":      append(append([]byte{}, raw...), 0x7f, 0, 0, 0, 0, 0, 0, 0, 0),
	} {
		s, err := ReadStream(bytes.NewReader(in))
		if !errors.Is(err, ErrBadStream) {
			t.Errorf("%s: err %v, want ErrBadStream", name, err)
		}
		if name == "truncated" && (s == nil || len(s.Decisions) != 1) {
			t.Errorf("truncated: kept %+v, want the one complete decision", s)
		}
	}
	path := t.TempDir() + "/s"
	if err := good.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadStreamFile(path)
	if err != nil || len(back.Decisions) != 2 || back.Decisions[1] != (Decision{KindRand, 2}) {
		t.Fatalf("file round trip: %+v, %v", back, err)
	}
}
