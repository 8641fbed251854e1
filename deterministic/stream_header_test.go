package deterministic

import (
	"errors"
	"os"
	"path/filepath"
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
		{write("v99", "simrt-stream 99\n\x01\x00\x00\x00\x00\x00\x00\x00\x00"), `unsupported version "99" (this build reads 1)`},
		{write("v2", "simrt-stream 2\n\x01\x00\x00\x00\x00\x00\x00\x00\x00\n"), `unsupported version "2" (this build reads 1)`},
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
