package decision

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A stream file that cannot be read says what is wrong with it: a
// directory, another version of the format, or no stream header at all.
func TestReadStreamSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{dir, "is a directory"},
		{write("v99", "simrt-stream 99\n\x01\x00\x00\x00\x00\x00\x00\x00\x00"), `unsupported version "99" (this build reads 1 and 2)`},
		{write("v3", "simrt-stream 3\n\x01\x00\x00\x00\x00\x00\x00\x00\x00\n"), `unsupported version "3" (this build reads 1 and 2)`},
		{write("v2 unquoted", "simrt-stream 2\ntest TestX\n\n"), `header field 1 ("test TestX"): want a name, a space and a quoted string`},
		{write("v2 unended", "simrt-stream 2\ntest \"TestX\"\n"), `header field 2: the header ends before its empty line`},
		{write("other", "hello world, not a stream\n"), `not a decision stream (its header is "hello world, no"`},
		{write("short", "sim"), `not a decision stream (its header is "sim"`},
	} {
		_, err := ReadStreamFile(c.path)
		if !errors.Is(err, ErrBadStream) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadStreamFile(%s) = %v; want ErrBadStream saying %q", filepath.Base(c.path), err, c.want)
		}
	}
	if _, err := ReadStreamFile(write("ok", streamMagic)); err != nil {
		t.Errorf("an empty stream: %v", err)
	}
}

// A stream names the test that recorded it in its file (format 2), and a
// stream without a test is written as before (format 1), which every build
// reads; a file of format 1 reads back with no test.
func TestStreamFileNamesItsTest(t *testing.T) {
	ds := []Decision{{KindYield, 3}, {KindRand, 1 << 60}}
	named := &Stream{Test: "TestX/sub one", Package: "example.com/m/pkg", Decisions: ds}
	var buf bytes.Buffer
	if _, err := named.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if head := "simrt-stream 2\ntest \"TestX/sub one\"\npackage \"example.com/m/pkg\"\n\n"; !strings.HasPrefix(buf.String(), head) {
		t.Errorf("file starts %q, want %q", buf.String(), head)
	}
	got, err := ReadStream(&buf)
	if err != nil || got.Test != named.Test || got.Package != named.Package || !slices.Equal(got.Decisions, ds) {
		t.Errorf("read back %+v, %v; want %+v", got, err, named)
	}

	buf.Reset()
	if _, err := (&Stream{Decisions: ds}).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), streamMagic) || buf.Len() != len(streamMagic)+9*len(ds) {
		t.Errorf("a stream without a test: %q, want format 1", buf.String())
	}
	got, err = ReadStream(&buf)
	if err != nil || got.Test != "" || got.Package != "" || !slices.Equal(got.Decisions, ds) {
		t.Errorf("format 1 read back %+v, %v", got, err)
	}

	// A field this build does not know is skipped.
	got, err = ReadStream(strings.NewReader("simrt-stream 2\nfuture \"x\"\ntest \"TestY\"\n\n\x02\x05\x00\x00\x00\x00\x00\x00\x00"))
	if err != nil || got.Test != "TestY" || !slices.Equal(got.Decisions, []Decision{{KindYield, 5}}) {
		t.Errorf("with an unknown field: %+v, %v", got, err)
	}
}
